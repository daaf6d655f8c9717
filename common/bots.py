"""Known robots: crawlers, link-preview fetchers (chat apps, social networks) and monitoring tools.

One list for the whole service: a short link's visit is not counted for them, and a paste
is neither counted nor burned by them (a chat app unfurling a burn-after-read link must not
eat it before the person it was sent to opens it).
"""

import re
from functools import lru_cache

from django.http import HttpRequest

# "(?<!cu)" spares the Cubot phones, whose User-Agent contains "CUBOT". "bot/" and "bot\b" cover
# Googlebot, bingbot, Twitterbot, Discordbot, LinkedInBot, Applebot, DuckDuckBot, YandexBot, ….
BOT_USER_AGENT = re.compile(
    r"(?<!cu)bot\b|bot/|crawl|spider|slurp|preview|facebookexternalhit|facebookcatalog|embedly|iframely"
    r"|whatsapp|telegram|discord|slack|skype|mastodon|pleroma|akkoma|misskey|vkshare|linkedin|pinterest"
    r"|lighthouse|headlesschrome|pingdom|uptime|monitor|feedfetcher|mediapartners|google-read-aloud"
    r"|mattermost|zulip|cardyb|google-inspectiontool|googleother|snapchat|viber|flipboard|tumblr|outbrain",
    re.IGNORECASE,
)


@lru_cache(maxsize=4096)
def is_bot(user_agent: str) -> bool:
    # Cached: the same few thousand User-Agents come back all day, and the regex is the costly part.
    return BOT_USER_AGENT.search(user_agent) is not None


def is_bot_request(request: HttpRequest) -> bool:
    return is_bot(request.META.get("HTTP_USER_AGENT", ""))


# Automated *browsers* on the list above (headless Chrome, Lighthouse): they are robots for counting,
# but a person or a test may drive one through a paste's page, and unlike a link-preview agent it
# runs the page and clicks "Reveal". A link preview fetches the link; it never posts a form.
HEADLESS_BROWSER = re.compile(r"headlesschrome|chrome-lighthouse", re.IGNORECASE)


@lru_cache(maxsize=4096)
def is_preview_bot(user_agent: str) -> bool:
    """A known robot that is not a headless browser: what may never reveal a burn-after-read paste."""
    return is_bot(user_agent) and HEADLESS_BROWSER.search(user_agent) is None


def is_preview_bot_request(request: HttpRequest) -> bool:
    return is_preview_bot(request.META.get("HTTP_USER_AGENT", ""))
