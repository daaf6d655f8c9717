"""A robots.txt reader following RFC 9309: the most specific group, the longest matching rule.

The standard library's `urllib.robotparser` applies the first matching rule
instead of the longest one and cannot say which rule decided, which is the
evidence a user needs.
"""

import re
from dataclasses import dataclass, field
from functools import lru_cache
from urllib.parse import unquote


@dataclass(frozen=True)
class Rule:
    allow: bool
    pattern: str

    def __str__(self) -> str:
        return f"{'Allow' if self.allow else 'Disallow'}: {self.pattern}"


@dataclass
class Robots:
    groups: list[tuple[list[str], list[Rule]]] = field(default_factory=list)  # (user agents, rules)
    sitemaps: list[str] = field(default_factory=list)

    def rules_for(self, user_agent: str) -> list[Rule]:
        """The rules of the group naming the longest matching agent token, else the `*` group."""
        agent = user_agent.lower()
        best: tuple[int, list[Rule]] | None = None
        fallback: list[Rule] = []
        for agents, rules in self.groups:
            for token in agents:
                if token == "*":
                    fallback = fallback + rules
                elif token in agent and (best is None or len(token) > best[0]):
                    best = (len(token), rules)
        return best[1] if best else fallback

    def deciding_rule(self, user_agent: str, path: str) -> Rule | None:
        """The rule that decides `path` (longest pattern wins, Allow wins a tie), or None."""
        matches = [rule for rule in self.rules_for(user_agent) if rule.pattern and _matches(rule.pattern, path)]
        if not matches:
            return None
        return max(matches, key=lambda rule: (len(rule.pattern), rule.allow))

    def allows(self, user_agent: str, path: str) -> bool:
        rule = self.deciding_rule(user_agent, path)
        return rule is None or rule.allow


def parse_robots(text: str) -> Robots:
    robots = Robots()
    agents: list[str] = []
    rules: list[Rule] = []
    for raw_line in text.splitlines():
        line = raw_line.split("#", 1)[0].strip()
        name, separator, value = line.partition(":")
        if not separator:
            continue
        name, value = name.strip().lower(), value.strip()
        if name == "user-agent":
            if rules:  # a user-agent line after rules starts a new group
                robots.groups.append((agents, rules))
                agents, rules = [], []
            agents.append(value.lower())
        elif name in ("allow", "disallow") and agents:
            rules.append(Rule(allow=name == "allow", pattern=value))
        elif name == "sitemap" and value:
            robots.sitemaps.append(value)
    if agents:
        robots.groups.append((agents, rules))
    return robots


def _matches(pattern: str, path: str) -> bool:
    return _compile(pattern).match(unquote(path)) is not None


@lru_cache(maxsize=256)
def _compile(pattern: str) -> re.Pattern[str]:
    anchored = pattern.endswith("$")
    body = unquote(pattern[:-1] if anchored else pattern)
    regex = ".*".join(re.escape(part) for part in body.split("*"))
    return re.compile(regex + ("$" if anchored else ""))
