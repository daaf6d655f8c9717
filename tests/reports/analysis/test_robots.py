from reports.analysis.robots import Rule, parse_robots

UA = "Mozilla/5.0 (compatible; Webtools-Reports/1.0)"


def test_a_page_is_allowed_when_no_rule_matches():
    assert parse_robots("User-agent: *\nDisallow: /admin\n").allows(UA, "/shop")


def test_the_longest_matching_rule_decides():
    robots = parse_robots("User-agent: *\nDisallow: /shop\nAllow: /shop/spades\n")

    assert robots.deciding_rule(UA, "/shop/spades/1") == Rule(allow=True, pattern="/shop/spades")
    assert not robots.allows(UA, "/shop/rakes")


def test_allow_wins_a_tie_between_rules_of_equal_length():
    assert parse_robots("User-agent: *\nDisallow: /page\nAllow: /page\n").allows(UA, "/page")


def test_wildcards_and_end_anchors_match():
    robots = parse_robots("User-agent: *\nDisallow: /*.pdf$\n")

    assert not robots.allows(UA, "/files/guide.pdf")
    assert robots.allows(UA, "/files/guide.pdf?download=1")


def test_a_group_naming_our_agent_replaces_the_star_group():
    robots = parse_robots("User-agent: *\nDisallow: /\n\nUser-agent: webtools-reports\nDisallow: /private\n")

    assert robots.allows(UA, "/shop")
    assert not robots.allows("SomeOtherBot/2.0", "/shop")


def test_an_empty_disallow_allows_everything():
    assert parse_robots("User-agent: *\nDisallow:\n").allows(UA, "/anything")


def test_sitemaps_are_collected_and_comments_ignored():
    robots = parse_robots("# hello\nSitemap: https://shop.example/s.xml # main\nUser-agent: *\nDisallow: /x\n")

    assert robots.sitemaps == ["https://shop.example/s.xml"]
