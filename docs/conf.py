"""Sphinx configuration of the documentation site.

    python -m sphinx -W -b html docs docs/_build/html   # the site, in docs/_build/html

Sphinx with furo and MyST, as Gymnasium's and PettingZoo's sites: the code's docstrings are reStructuredText
(autodoc reads them as they are; Sphinx's own language), the hand-written pages Markdown. At every build
:mod:`docs.env_pages` writes each env's page from the registry and the env's docstring, and the experiment
write-ups (``results/*.md``) and ``BENCHMARKS.md`` are copied in, so the site shows the files the
experiments wrote. A relative link to a file the site does not publish becomes a link to it in the
repository.

Links are checked, warnings being errors in CI: a hand-written page's relative link must name a repository file
relative to the page (as GitHub reads it; not from the repository's root), and every relative link of the built
site must reach a file of the site.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path
from urllib.parse import unquote

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from sphinx.util import logging  # noqa: E402

logger = logging.getLogger(__name__)

#: Where the repository's files are read (a link to a file the site does not publish goes there).
REPOSITORY = "https://github.com/deduction-envs/deduction-envs"

project = "deduction-envs"
author = "the deduction-envs maintainers"
copyright = "2026, the deduction-envs maintainers"  # Sphinx's name

extensions = ["myst_parser", "sphinx.ext.autodoc", "sphinx.ext.napoleon", "sphinx.ext.viewcode"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "README.md"]
html_theme = "furo"
html_title = "deduction-envs"
html_static_path = ["_static"]
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 6

autodoc_member_order = "bysource"
autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_typehints = "description"
napoleon_google_docstring = True
napoleon_numpy_docstring = False

#: Files copied into the site at each build, to the same path under docs/: the benchmarks, the write-ups and
#: their figures.
COPIED = [ROOT / "BENCHMARKS.md", *(ROOT / "results").glob("*.md")]
COPIED += [p for p in (ROOT / "results").rglob("*") if p.suffix in (".png", ".svg", ".gif")]
LINK = re.compile(r"(!?\[[^\]]*\]\()([^)\s]+)(\))")


#: The pages and files each build writes (env and API pages, copies): not the repository's, so a hand-written
#: page does not link to them by a path GitHub would follow.
BUILT: set[Path] = set()


def _write_sources(app) -> None:
    from docs.env_pages import write_api_pages, write_pages

    BUILT.update(path.resolve() for path in (*write_pages(), *write_api_pages()))
    for source in COPIED:
        target = HERE / source.relative_to(ROOT)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
        BUILT.add(target.resolve())


PUBLISHED = (".md", ".rst", ".png", ".svg", ".gif")


def _site_or_repository(page: Path, path: str) -> str | None:
    """Where a relative link of ``page`` (read relative to the page) should point: a path relative to the page
    if the site publishes the file (itself, or its copy: ``../results/x.md`` is the site's ``results/x.md``), a
    repository URL if the repository has it, None if nothing has it. A page copied from the repository links as
    its original does (the site's ``results/`` mirrors the repository's)."""
    resolved = (page.parent / path).resolve()
    copy = HERE / resolved.relative_to(ROOT) if resolved.is_relative_to(ROOT) else resolved
    mirror = ROOT / resolved.relative_to(HERE) if resolved.is_relative_to(HERE) else resolved
    for published in (resolved, copy, mirror):  # the site's own file, its copy, the repository file it mirrors
        if published.is_relative_to(HERE) and published.is_file() and published.suffix in PUBLISHED:
            return os.path.relpath(published, page.parent)
    for original in (resolved, mirror):
        if original.is_relative_to(ROOT) and original.exists():
            kind = "tree" if original.is_dir() else "blob"
            return f"{REPOSITORY}/{kind}/main/{original.relative_to(ROOT).as_posix()}"
    return None


def _rewrite_links(app, docname: str, source: list[str]) -> None:
    """Relative links to files outside the site go to the repository; the rest point into the site."""
    page = HERE / docname
    hand_written = (HERE / f"{docname}.md").resolve() not in BUILT

    def rewrite(match: re.Match) -> str:
        target = match.group(2)
        if re.match(r"[a-z]+:|#|/", target):
            return match.group(0)
        path, _, anchor = target.partition("#")
        named = (page.parent / path).resolve()
        if hand_written and path and (not named.exists() or named in BUILT):
            logger.warning(
                f"the link {target!r} names no repository file relative to the page (as GitHub reads it): "
                "write it from the page's folder",
                location=docname,
            )
        where = _site_or_repository(page, path)
        if where is None:
            return match.group(0)  # a broken link: Sphinx says so
        return f"{match.group(1)}{where}{'#' + anchor if anchor else ''}{match.group(3)}"

    if (HERE / f"{docname}.md").exists():
        source[0] = LINK.sub(rewrite, source[0])


def _docstring(app, what, name, obj, options, lines: list[str]) -> None:
    """A docstring as autodoc reads it: Markdown headings (Gymnasium's env style) a rubric each, example
    commands and snippets (indented blocks after a plain paragraph) literal blocks."""
    from docs.env_pages import literal_blocks, markdown_headings

    lines[:] = literal_blocks(markdown_headings(lines, rubric=True))


def _only_modules_with_source(app) -> list:
    """viewcode lists in ``_modules/index.html`` every module it met, also those it found no source of and so
    wrote no page for (``builtins``): a dead link. They are dropped before its pages are written."""
    modules = getattr(app.env, "_viewcode_modules", {})
    for name in [name for name, entry in modules.items() if entry is False]:
        del modules[name]
    return []


def _check_site_links(app, error: Exception | None) -> None:
    """Every relative ``href`` and ``src`` of the built site reaches a file of the site."""
    if error is not None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    for page in sorted(out.rglob("*.html")):
        for target in re.findall(r'(?:href|src)="([^"]+)"', page.read_text(encoding="utf-8", errors="replace")):
            path = unquote(target.split("#")[0].split("?")[0])
            if not path or re.match(r"[a-z][a-z0-9+.-]*:|//", target):
                continue
            reached = page.parent / path
            if not (reached / "index.html" if reached.is_dir() else reached).exists():
                logger.warning(f"{page.relative_to(out)} links {target!r}, which the site does not have")


def setup(app) -> None:
    app.connect("builder-inited", _write_sources)
    app.connect("source-read", _rewrite_links)
    app.connect("autodoc-process-docstring", _docstring)
    app.connect("html-collect-pages", _only_modules_with_source, priority=100)  # before viewcode's
    app.connect("build-finished", _check_site_links)
