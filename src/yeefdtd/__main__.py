import sys

from . import startup

try:   # the package is loaded by now; this takes the command's own module
    from .cli import main
except KeyboardInterrupt as exc:
    startup.interrupted(exc)
    raise

sys.exit(main())
