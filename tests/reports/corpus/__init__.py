"""Real pages of public websites, written by others, for calibrating the analysis engine.

Each page is the built HTML of a public website as committed to a public repository
(`SOURCES`: repository, path and commit). Only the HTML is kept; the test site
(tests/reports/testsite.py) serves it at /corpus/<file>, so its images, scripts and
stylesheets answer 404 there, as they would for a page copied without its assets.
Nothing is fetched live.
"""

from dataclasses import dataclass
from pathlib import Path

PAGES_DIR = Path(__file__).parent / "pages"


@dataclass(frozen=True)
class Source:
    file: str
    site: str
    repository: str
    path: str
    commit: str


SOURCES = [
    Source("backbonejs-home.html", "backbonejs.org", "jashkenas/backbone", "index.html",
           "e8bc45acb0a8b035fe5a0d7338e1b2757681564f"),
    Source("backbone-annotated-source.html", "backbonejs.org/docs/backbone.html", "jashkenas/backbone",
           "docs/backbone.html", "e8bc45acb0a8b035fe5a0d7338e1b2757681564f"),
    Source("backbone-todos-example.html", "backbonejs.org/examples/todos/", "jashkenas/backbone",
           "examples/todos/index.html", "e8bc45acb0a8b035fe5a0d7338e1b2757681564f"),
    Source("underscorejs-home.html", "underscorejs.org", "jashkenas/underscore", "index.html",
           "e70d5bd070f1d883b40e786a955a61e4f4b3c2c6"),
    Source("underscore-modules-docco.html", "underscorejs.org/docs/modules/", "jashkenas/underscore",
           "docs/modules/index.html", "e70d5bd070f1d883b40e786a955a61e4f4b3c2c6"),
    Source("coffeescript-v2.html", "coffeescript.org", "jashkenas/coffeescript", "docs/v2/index.html",
           "817c39a13065a900725943c33a79252a69d779e2"),
    Source("coffeescript-v1.html", "coffeescript.org/v1/", "jashkenas/coffeescript", "docs/v1/index.html",
           "817c39a13065a900725943c33a79252a69d779e2"),
    Source("eemr-pkgdown-home.html", "pmassicotte.github.io/eemR", "PMassicotte/eemR", "docs/index.html",
           "ea5b55044f098348ac37da45f5ebf625f966865d"),
    Source("eemr-pkgdown-reference.html", "pmassicotte.github.io/eemR/reference/eem_extract.html",
           "PMassicotte/eemR", "docs/reference/eem_extract.html", "ea5b55044f098348ac37da45f5ebf625f966865d"),
    Source("eemr-pkgdown-article.html", "pmassicotte.github.io/eemR/articles/introduction.html",
           "PMassicotte/eemR", "docs/articles/introduction.html", "ea5b55044f098348ac37da45f5ebf625f966865d"),
    Source("animate-style-landing.html", "animate.style", "animate-css/animate.css", "docs/index.html",
           "3f8ab233dbbd9d2fe577528d2296382954be3d1a"),
    Source("hover-css-landing.html", "ianlunn.github.io/Hover", "IanLunn/Hover", "index.html",
           "eb8629df13850d78bbcccd4fed68d231aec0c535"),
    Source("spinkit-examples.html", "tobiasahlin.com/spinkit", "tobiasahlin/SpinKit", "examples.html",
           "742a71277c49b69053b5beb9fad80d720840a2ab"),
    Source("yesplaymusic-spa-shell.html", "music.qier222.com (a fork's build)", "Bvbrutal/YesPlayMusic",
           "dist/index.html", "59eb518c7771b6c45643b5c1a0d893cc72db47ff"),
    Source("html5-boilerplate-template.html", "html5boilerplate.com template", "h5bp/html5-boilerplate",
           "dist/index.html", "b7e31d67f4cf83e23d51f4decc73618bf8bd77ba"),
    Source("html5-boilerplate-404.html", "html5boilerplate.com 404 template", "h5bp/html5-boilerplate",
           "dist/404.html", "b7e31d67f4cf83e23d51f4decc73618bf8bd77ba"),
    Source("matlab-published-homework.html", "rickyhan.com/matlab/homework202.html", "0b01/rickyhan.com",
           "matlab/homework202.html", "8fd5adce72bfbdbc08c43ac489112ef02209baf5"),
    Source("nginx-welcome.html", "nginx's default welcome page", "nginx/nginx", "docs/html/index.html",
           "3f6f7824d4e2eb1ac37dec76683d525ac0ff521c"),
    Source("nginx-50x.html", "nginx's default error page", "nginx/nginx", "docs/html/50x.html",
           "3f6f7824d4e2eb1ac37dec76683d525ac0ff521c"),
    Source("lua-53-readme.html", "lua.org/manual/5.3/readme.html", "lua/lua", "doc/readme.html",
           "ef91579f913d6e1c4666d10b3dc08e1da247328a"),
    Source("lua-53-contents.html", "lua.org/manual/5.3/", "lua/lua", "doc/contents.html",
           "ef91579f913d6e1c4666d10b3dc08e1da247328a"),
    Source("alproj-sphinx-home.html", "alproj documentation (Sphinx)", "0kam/alproj", "docs/_build/html/index.html",
           "c8a3e3d9f99e692db918e29f5e8f9119100a1953"),
    Source("alproj-sphinx-module.html", "alproj documentation, alproj.optimize (Sphinx)", "0kam/alproj",
           "docs/_build/html/alproj.optimize.html", "c8a3e3d9f99e692db918e29f5e8f9119100a1953"),
    Source("pyradiomics-sphinx-source.html", "pyradiomics documentation, source of radiomics.shape (Sphinx)",
           "AIM-Harvard/pyradiomics", "docs/_build/html/_modules/radiomics/shape.html",
           "cda77ddc23af47c8a7693545c8efd4f24d7309cb"),
    Source("tachyons-home.html", "tachyons.io", "tachyons-css/tachyons-css.github.io", "index.html",
           "c12c97fbfff04bcd102477af59848d08ef75c89f"),
    Source("tachyons-docs-forms.html", "tachyons.io/docs/elements/forms/", "tachyons-css/tachyons-css.github.io",
           "docs/elements/forms/index.html", "c12c97fbfff04bcd102477af59848d08ef75c89f"),
    Source("tachyons-docs-flexbox.html", "tachyons.io/docs/layout/flexbox/", "tachyons-css/tachyons-css.github.io",
           "docs/layout/flexbox/index.html", "c12c97fbfff04bcd102477af59848d08ef75c89f"),
    Source("tachyons-component-article.html", "tachyons.io/components/articles/feature/",
           "tachyons-css/tachyons-css.github.io", "components/articles/feature/index.html",
           "c12c97fbfff04bcd102477af59848d08ef75c89f"),
]  # fmt: skip

CORPUS_PAGES = {source.file: PAGES_DIR / source.file for source in SOURCES}
