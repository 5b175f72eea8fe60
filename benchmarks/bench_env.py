"""Mock-backend steps/s and resets/s for every id x level (see guigym/bench.py)."""

from guigym.bench import main

if __name__ == "__main__":
    raise SystemExit(main())
