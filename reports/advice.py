"""What a failed check means for the site's visitors, and how to fix it.

Keyed by check id, so that a new check adds its own entry here; the report page
shows a failed check without advice too, just without this text. The texts are translated
lazily: a page shows them in its reader's language.
"""

from dataclasses import dataclass

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _


@dataclass(frozen=True)
class Advice:
    why: str | Promise
    fix: str | Promise


ADVICE: dict[str, Advice] = {
    # --- SEO
    "title": Advice(
        _("Search results and browser tabs show the title; without one, or with several, search engines make one up."),
        _("Give the page exactly one non-empty <title> that names what the page is about."),
    ),
    "title_optimal_length": Advice(
        _("A title under 10 characters says little about the page, and one over 70 is cut off in search results."),
        _("Lengthen or shorten the <title> to 10 to 70 characters, keeping the important words first."),
    ),
    "meta_description": Advice(
        _("Search engines often show the meta description as the snippet under the title; without one they guess."),
        _('Add one <meta name="description" content="…"> that summarises the page in a sentence or two.'),
    ),
    "meta_description_optimal_length": Advice(
        _(
            "A description under 50 characters rarely describes the page; search results cut long ones "
            "(past 320 always)."
        ),
        _("Rewrite the description to 50 to 320 characters, with the essentials in the first 160."),
    ),
    "headings": Advice(
        _(
            "The <h1> tells readers and crawlers what the page is about; several, none, or one equal to the title "
            "blurs that."
        ),
        _("Use exactly one <h1> that describes the page in words other than the title, and h2 to h6 below it."),
    ),
    "content_keywords": Advice(
        _("When the title's words do not appear in the text, search engines see the page as less relevant to them."),
        _("Use the title's main words in the body text, or retitle the page after what it really says."),
    ),
    "keyword_consistency": Advice(
        _("The words the text repeats most should be the ones the title, description and headings promise."),
        _("Work the page's most frequent keywords into its title, description or headings (or reword the text)."),
    ),
    "image_keywords": Advice(
        _("Screen readers read the alt text aloud and search engines index it; an image without one is a blank."),
        _('Give every <img> an alt attribute: a short description, or alt="" for a purely decorative image.'),
    ),
    "seo_friendly_url": Advice(
        _("Short, lower-case URLs made of words are easier to read, share and rank than ones full of symbols."),
        _("Use lower-case words separated by hyphens, few query parameters and a short path; redirect the old URL."),
    ),
    "canonical_tag": Advice(
        _("Without a canonical URL, copies of the page (tracking parameters, http/https) split its ranking."),
        _('Add one <link rel="canonical" href="https://…"> with the absolute URL of the preferred version.'),
    ),
    "hreflang": Advice(
        _("Broken hreflang annotations send visitors to the wrong language version, or are ignored."),
        _('Use valid language codes (e.g. "en", "pt-BR", "x-default") and a full URL in every hreflang link.'),
    ),
    "404_page": Advice(
        _("A missing page that answers 200 is indexed as a real page (a 'soft 404') and wastes crawl budget."),
        _("Make the server answer unknown URLs with HTTP status 404 (or 410), with a helpful page."),
    ),
    "robots": Advice(
        _("A robots.txt rule that disallows the page keeps search engines from crawling it at all."),
        _("Remove or narrow the Disallow rule that matches this URL, and make robots.txt answer without errors."),
    ),
    "noindex": Advice(
        _('A <meta name="robots" content="noindex"> removes the page from search results.'),
        _("Remove noindex from the page's robots meta tag, unless the page really must stay out of search."),
    ),
    "noindex_header": Advice(
        _("An X-Robots-Tag: noindex response header removes the page from search results."),
        _("Remove noindex from the X-Robots-Tag header in the server or CDN configuration."),
    ),
    "in_page_links": Advice(
        _("A page with very many links dilutes each one and is hard to use."),
        _("Keep the links that help the reader; move long lists to their own pages."),
    ),
    "nofollow_links": Advice(
        _("rel=nofollow on links to your own pages tells crawlers not to follow them, hiding those pages."),
        _("Remove rel=nofollow from internal links."),
    ),
    "link_text": Advice(
        _('Link texts such as "click here", or none at all, tell neither readers nor crawlers where a link leads.'),
        _("Write link texts that name the destination, or give icon links an aria-label."),
    ),
    "link_url_readability": Advice(
        _("Internal links to unreadable URLs pass those URLs on to readers and crawlers."),
        _("Link to short, lower-case, hyphenated URLs (and redirect the old ones to them)."),
    ),
    "language": Advice(
        _("The page's language lets screen readers pronounce it and search engines serve it to the right readers."),
        _('Declare it on the root element with a valid code, e.g. <html lang="en">.'),
    ),
    "favicon": Advice(
        _("Browsers, bookmarks and some search results show the favicon; without one the site looks unfinished."),
        _('Add <link rel="icon" href="/favicon.ico"> (or an SVG/PNG icon) and serve the file.'),
    ),
    # --- Performance
    "text_compression": Advice(
        _("Uncompressed HTML, CSS and JavaScript take several times longer to download."),
        _("Turn on gzip or Brotli compression for text responses in the web server or CDN."),
    ),
    "load_time": Advice(
        _("Visitors leave slow pages, and search engines rank fast pages higher."),
        _("Cache pages, speed up the server's response (database queries, upstream calls) and serve less."),
    ),
    "largest_contentful_paint": Advice(
        _("Until the largest text or image appears, visitors see an unfinished page; LCP is a Core Web Vital."),
        _(
            "Send less HTML before the main content, inline the critical CSS, preload the hero image "
            "and make it smaller."
        ),
    ),
    "total_blocking_time": Advice(
        _("While scripts keep the main thread busy, taps and keys get no answer and the page feels frozen."),
        _(
            "Load less JavaScript, split long tasks, defer what is not needed at once "
            "and drop unused third-party scripts."
        ),
    ),
    "cumulative_layout_shift": Advice(
        _("Content that jumps while loading makes people lose their place or click the wrong thing."),
        _("Give images, embeds and ads a width and height (or aspect-ratio); insert nothing above what is shown."),
    ),
    "first_contentful_paint": Advice(
        _("A blank screen for seconds makes visitors think the page is broken."),
        _("Send less before the first text: fewer render-blocking stylesheets and scripts, smaller compressed HTML."),
    ),
    "page_size": Advice(
        _("Every kilobyte of HTML has to be downloaded and parsed before the page appears, slowest on mobiles."),
        _("Remove inline data and unused markup, move large inline scripts and styles into cached files, paginate."),
    ),
    "http_requests": Advice(
        _("Each file the page loads costs a request; many of them delay the page, and broken ones load nothing."),
        _("Combine and remove scripts and stylesheets, lazy-load images below the fold, fix or remove broken URLs."),
    ),
    "image_format": Advice(
        _("JPEG, PNG and GIF images are often twice the size of the same image in WebP or AVIF."),
        _("Serve images as WebP or AVIF (with <picture> for a fallback), or SVG for drawings and icons."),
    ),
    "defer_javascript": Advice(
        _("A script without defer or async stops the browser from showing the page until it has run."),
        _("Add defer (or async, or type=module) to <script src> tags, or move them to the end of the body."),
    ),
    "minification": Advice(
        _("Whitespace and comments in CSS and JavaScript are bytes every visitor downloads for nothing."),
        _("Minify CSS and JavaScript in the build (e.g. esbuild, terser, cssnano)."),
    ),
    "dom_size": Advice(
        _("A large DOM uses more memory and makes every style recalculation and layout slower."),
        _("Remove wrapper elements, paginate or lazy-render long lists, and avoid hidden copies of content."),
    ),
    "doctype": Advice(
        _("Without <!DOCTYPE html> browsers render the page in quirks mode, with old and inconsistent layout rules."),
        _("Start the document with <!DOCTYPE html>."),
    ),
    "http2": Advice(
        _("HTTP/2 and HTTP/3 load many files over one connection at once; HTTP/1.1 queues them."),
        _("Serve the site over HTTPS with HTTP/2 (or HTTP/3) enabled in the web server or CDN."),
    ),
    # --- Security
    "https_encryption": Advice(
        _("Without HTTPS anyone on the network can read and change the page; browsers mark it 'Not secure'."),
        _("Get a certificate (e.g. Let's Encrypt), serve the site over HTTPS and redirect http:// to https://."),
    ),
    "mixed_content": Advice(
        _("http:// resources on an https:// page are blocked by browsers or can be tampered with."),
        _("Load every resource over https:// (or relative URLs), or host it yourself."),
    ),
    "server_signature": Advice(
        _("Headers that name the server software and its version help attackers find known vulnerabilities."),
        _("Hide version numbers (e.g. server_tokens off in nginx, ServerTokens Prod in Apache) and drop X-Powered-By."),
    ),
    "unsafe_cross_origin_links": Advice(
        _('A link with target="_blank" to another site lets that site reach back to your page (window.opener).'),
        _('Add rel="noopener" (or rel="noopener noreferrer") to links that open another site in a new tab.'),
    ),
    "hsts": Advice(
        _("Strict-Transport-Security makes browsers use HTTPS even when someone types or links http://."),
        _('Send "Strict-Transport-Security: max-age=31536000; includeSubDomains" on HTTPS responses.'),
    ),
    "plaintext_email": Advice(
        _("E-mail addresses written in the page are harvested by spam bots."),
        _("Use a contact form, or obfuscate the address."),
    ),
    "content_security_policy": Advice(
        _("A Content Security Policy limits what scripts may run, the main defence in depth against XSS."),
        _(
            "Send a Content-Security-Policy header, starting from default-src 'self' and allowing only what the page "
            "needs."
        ),
    ),
    # --- Miscellaneous
    "structured_data": Advice(
        _("Open Graph, Twitter cards and JSON-LD decide how the page looks when shared and in rich search results."),
        _('Add og:title, og:description and og:image meta tags and a valid <script type="application/ld+json">.'),
    ),
    "meta_viewport": Advice(
        _("Without a viewport tag mobiles show the desktop layout zoomed out, too small to read."),
        _('Add <meta name="viewport" content="width=device-width, initial-scale=1">.'),
    ),
    "charset": Advice(
        _("Without a declared character set, or with bytes that do not match it, text shows up garbled."),
        _('Save the page as UTF-8 and declare it: <meta charset="utf-8"> first in <head> and in Content-Type.'),
    ),
    "sitemap": Advice(
        _("A sitemap lists the pages for search engines, so new and deep pages are found sooner."),
        _("Publish /sitemap.xml and name it in robots.txt with a Sitemap: line."),
    ),
    "social": Advice(
        _("Links to the site's social profiles help visitors follow it and confirm who runs it."),
        _("Link to your social media profiles, e.g. in the footer."),
    ),
    "content_length": Advice(
        _("Pages with little text rank poorly for anything, having little to match."),
        _("Add useful text: explain, answer the reader's questions, describe the products."),
    ),
    "text_html_ratio": Advice(
        _("Little visible text in a lot of markup suggests a heavy page with thin content."),
        _("Trim markup (wrappers, inline scripts and styles) and add real content."),
    ),
    "inline_css": Advice(
        _("style attributes cannot be cached, repeat the same rules and stand in the way of a strict CSP."),
        _("Move styles into a stylesheet and use classes."),
    ),
    "deprecated_html_tags": Advice(
        _("Tags such as <font> and <center> are obsolete: browsers may drop them and they mix content with looks."),
        _("Replace them with semantic HTML and CSS (e.g. <strong>, text-align)."),
    ),
    "llms_txt": Advice(
        _("An /llms.txt file gives AI assistants a short, curated summary of the site instead of a guess."),
        _("Publish /llms.txt: a Markdown file with the site's name, a summary and links to its key pages."),
    ),
    "flash_content": Advice(
        _("No current browser runs Flash, so this content shows nothing."),
        _("Replace Flash with HTML5 video, canvas or plain images."),
    ),
    "iframes": Advice(
        _("Content in iframes is slower to load, often not indexed as part of the page, and hard to make accessible."),
        _('Use iframes only where needed, give each a title, and load them lazily (loading="lazy").'),
    ),
}
ADVICE.update(
    {
        # Accessibility, crawlable links, image sizes and old doctypes.
        "crawlable_links": Advice(
            _("Crawlers follow only links with a real URL; javascript: or empty hrefs hide the pages behind them."),
            _("Give every navigation link an href with a real URL; use <button> for actions that are not links."),
        ),
        "image_dimensions": Advice(
            _("Without width and height the browser cannot reserve an image's space, so the text jumps as it loads."),
            _("Add width and height attributes (the image's real size) to every <img>; CSS can still resize it."),
        ),
        "legacy_doctype": Advice(
            _("Old XHTML and HTML 4 doctypes can switch browsers into limited-quirks mode, with older layout rules."),
            _("Replace the doctype with <!DOCTYPE html>."),
        ),
        "link_name": Advice(
            _("A link without text or a label is announced by screen readers as just 'link'."),
            _("Give every link visible text, or an aria-label (for icon links, or the image's alt text)."),
        ),
        "button_name": Advice(
            _("A button without a name is announced as just 'button': nobody knows what it does."),
            _("Give every button text, or an aria-label when it shows only an icon."),
        ),
        "form_labels": Advice(
            _("A field without a label leaves screen-reader users guessing what to type."),
            _('Tie a <label for="…"> to every field, or give it an aria-label.'),
        ),
        "zoomable": Advice(
            _("user-scalable=no or a low maximum-scale stops people with weak eyesight from zooming in."),
            _("Remove user-scalable=no and maximum-scale from the viewport meta tag."),
        ),
        "heading_order": Advice(
            _("Skipped heading levels leave holes in the outline screen-reader users navigate by."),
            _("Go down one level at a time (h2, then h3); style headings with CSS rather than picking levels by size."),
        ),
        "color_contrast": Advice(
            _("Text with too little contrast is hard to read for many people, and on any screen in sunlight."),
            _("Darken the text or lighten the background until the contrast is at least 4.5:1 (3:1 for large text)."),
        ),
        "tap_targets": Advice(
            _("Small links and buttons close together are hard to hit on a touch screen."),
            _("Make tap targets at least 24 by 24 CSS pixels, or leave more space around them."),
        ),
        "image_aspect_ratio": Advice(
            _("An image shown in another aspect ratio than its file's looks squeezed or stretched."),
            _("Keep width and height in the file's proportions, or use object-fit: cover."),
        ),
    }
)
# The misspelt key of older reports (and of the reference product) for the HSTS check.
ADVICE.update(
    {
        "mixed_passive_content": Advice(
            _(
                "Browsers upgrade http:// images and media on an https:// page to https://, and drop them when "
                "their host has no https: visitors may see broken images."
            ),
            _("Load every image, video, audio file and CSS background over https:// (or host it yourself)."),
        ),
        "font_size": Advice(
            _("On a phone, text under 12 CSS pixels has to be zoomed to be read."),
            _(
                'Use a device-width viewport (<meta name="viewport" content="width=device-width, initial-scale=1">) '
                "and body text of at least 12 px (16 px reads best)."
            ),
        ),
    }
)
ADVICE["htst"] = ADVICE["hsts"]


def advice_for(check_key: str) -> Advice | None:
    return ADVICE.get(check_key)
