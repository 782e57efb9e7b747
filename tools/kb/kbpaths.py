"""Where the knowledge-base importers read and write, relative to the repository root.

GPUENV_KB_REFERENCE: the researched reference tables (default tools/kb/reference, the committed copy
of the team's ../shared/reference/*.toml). GPUENV_KB_DATA: gpuenv-kb's data directory to write
(default crates/gpuenv-kb/data; tools/kb/check points it at a scratch copy).
"""
import os
from pathlib import Path

REFERENCE = Path(os.environ.get("GPUENV_KB_REFERENCE", "tools/kb/reference"))
DATA = Path(os.environ.get("GPUENV_KB_DATA", "crates/gpuenv-kb/data"))
