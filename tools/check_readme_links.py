"""The README's links into docs/ (bin/docs): each names a page that exists and, after '#', a heading
of that page as MkDocs built it (target/site). MkDocs checks the links between the pages itself."""
import re
import sys
from pathlib import Path

root = Path(sys.argv[1])
readme = (root / "README.md").read_text(encoding="utf-8")
broken = []
for target in re.findall(r"\]\((docs/[^)\s]+)\)", readme):
    page, _, anchor = target.partition("#")
    if not (root / page).is_file():
        broken.append(f"{target}: no such file")
        continue
    if anchor:
        name = Path(page).stem
        html = root / "target" / "site" / ("index.html" if name == "index" else f"{name}/index.html")
        if f'id="{anchor}"' not in html.read_text(encoding="utf-8"):
            broken.append(f"{target}: no heading #{anchor} in {page}")
if broken:
    print("apx: broken links in README.md:\n  " + "\n  ".join(broken), file=sys.stderr)
    sys.exit(1)
