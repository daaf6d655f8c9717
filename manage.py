#!/usr/bin/env python
import os
import sys
from pathlib import Path


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from django.core.management import execute_from_command_line

    from common.env import use_local_secret_files

    # The secrets `make run` generated (.secret_key, …), as `make run` itself passes them.
    use_local_secret_files(Path(__file__).resolve().parent)
    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
