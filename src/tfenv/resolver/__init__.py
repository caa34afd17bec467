"""resolver"""
