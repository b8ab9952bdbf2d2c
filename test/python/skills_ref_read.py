"""Reads each skill folder under a corpus with the Agent Skills reference library (skills-ref) and
prints, as JSON, the name and description it reads from each, or why it refuses the file."""

import json
import sys
from pathlib import Path

from skills_ref.parser import read_properties

results = {}
for folder in sorted(Path(sys.argv[1]).iterdir()):
    if not folder.is_dir():
        continue
    try:
        properties = read_properties(folder)
        results[folder.name] = {"name": properties.name, "description": properties.description}
    except Exception as error:  # the reference refuses the file: say why
        results[folder.name] = {"error": f"{type(error).__name__}: {error}".splitlines()[0]}
json.dump(results, sys.stdout, indent=2, ensure_ascii=False)
