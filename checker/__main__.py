"""`python -m checker ...` is `check-model ...`."""
from .cli import main

main()
