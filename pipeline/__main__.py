from pipeline.cli import main

if __name__ == "__main__":  # worker processes import this module too
    raise SystemExit(main())
