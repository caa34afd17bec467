"""The file formats tfenv reads and writes, one module each, used by emit, lock and
check-upgrade alike: :mod:`.requirements_txt`, :mod:`.environment_yml` (the one
environment-file writer), :mod:`.pylock` (PEP 751), :mod:`.conda_lock`; :mod:`.locked`
picks a lockfile's reader by its name, and :mod:`.cuda_pins` reads what CUDA a resolved
lock pins. Submodules import their parsers inside functions: importing one is cheap.
"""
