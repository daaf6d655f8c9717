from reports.analysis.checks import accessibility

from .helpers import make_context, page


def test_link_name_passes_for_text_alt_aria_label_and_svg_title():
    body = (
        '<a href="/rakes">Rakes</a><a href="/home"><img src="/logo.png" alt="Home"></a>'
        '<a href="#menu" aria-label="Menu"><svg></svg></a><a href="/gh"><svg><title>GitHub</title></svg></a>'
        '<span id="t">Terms</span><a href="/terms" aria-labelledby="t"></a>'
    )

    outcome = accessibility.link_name(make_context(page("", body)))

    assert outcome.passed
    assert outcome.value == {"links": 5, "unnamed": 0}


def test_link_name_fails_for_icon_only_links_including_in_page_ones():
    body = '<a href="#top"><i class="icon-up"></i></a><a href="/x"><img src="/x.png"></a><a href="/y">ok</a>'

    outcome = accessibility.link_name(make_context(page("", body)))

    assert outcome.errors == {"missing": ["#top", "/x"]}


def test_link_name_ignores_text_hidden_from_screen_readers():
    body = '<a href="/cart"><span aria-hidden="true">🛒</span></a>'

    assert accessibility.link_name(make_context(page("", body))).errors == {"missing": ["/cart"]}


def test_button_name_passes_for_text_value_and_default_submit_caption():
    body = '<button>Send</button><input type="submit"><input type="button" value="Close"><div role="button">Go</div>'

    outcome = accessibility.button_name(make_context(page("", body)))

    assert outcome.passed
    assert outcome.value == {"buttons": 4, "unnamed": 0}


def test_button_name_fails_for_an_icon_button():
    body = '<button id="burger"><svg viewBox="0 0 1 1"></svg></button><input type="button" name="x">'

    outcome = accessibility.button_name(make_context(page("", body)))

    assert outcome.errors == {"missing": ["burger", "x"]}


def test_form_labels_pass_for_label_for_wrapping_label_aria_and_placeholder():
    body = (
        '<label for="q">Search</label><input id="q">'
        "<label>Name <input name=n></label>"
        '<select aria-label="Size"><option>S</option></select>'
        '<textarea placeholder="Your message"></textarea>'
        '<input type="hidden" name="csrf"><input type="submit">'
    )

    outcome = accessibility.form_labels(make_context(page("", body)))

    assert outcome.passed
    assert outcome.value == {"fields": 4, "unlabelled": 0}


def test_form_labels_fail_listing_fields_without_a_label():
    body = '<input id="email" type="email"><select name="country"></select>'

    outcome = accessibility.form_labels(make_context(page("", body)))

    assert outcome.errors == {
        "missing": [{"field": "input[type=email]", "id": "email"}, {"field": "select", "id": "country"}]
    }


def test_heading_order_passes_when_levels_go_down_one_at_a_time():
    body = "<h1>Tools</h1><h2>Spades</h2><h3>Steel</h3><h2>Rakes</h2><h1>Care</h1>"

    outcome = accessibility.heading_order(make_context(page("", body)))

    assert outcome.passed
    assert outcome.value == ["h1", "h2", "h3", "h2", "h1"]


def test_heading_order_fails_naming_each_skipped_level():
    body = "<h1>Tools</h1><h3>Spades</h3><h2>Rakes</h2><h5>Tines</h5>"

    outcome = accessibility.heading_order(make_context(page("", body)))

    assert outcome.errors == {
        "skipped_levels": [
            {"from": "h1", "to": "h3", "heading": "Spades"},
            {"from": "h2", "to": "h5", "heading": "Tines"},
        ]
    }


def test_rendered_checks_read_the_facts_the_browser_found():
    facts = {"color_contrast": {"value": {"text_elements": 3}, "failures": [{"text": "Grey", "ratio": 2.1}]}}
    context = make_context(page())
    context = type(context)(**{**context.__dict__, "rendered": facts})

    outcome = accessibility.color_contrast(context)

    assert outcome.value == {"text_elements": 3}
    assert outcome.errors == {"failed": [{"text": "Grey", "ratio": 2.1}]}


def test_zoomable_fails_when_the_viewport_blocks_zooming():
    content = "width=device-width, initial-scale=1.0; maximum-scale=1.0; user-scalable=0;"

    outcome = accessibility.zoomable(make_context(page(f'<meta name="viewport" content="{content}">')))

    assert outcome.errors == {"blocks_zoom": content}


def test_zoomable_passes_with_a_maximum_scale_of_five_or_no_viewport():
    content = "width=device-width, maximum-scale=5"

    assert accessibility.zoomable(make_context(page(f'<meta name="viewport" content="{content}">'))).passed
    assert accessibility.zoomable(make_context(page())).passed


def test_form_labels_skip_fields_inside_a_hidden_container():
    body = '<div id="searchbox" style="display: none"><form><input type="text" name="q"></form></div>'

    outcome = accessibility.form_labels(make_context(page("", body)))

    assert outcome.passed
    assert outcome.value == {"fields": 0, "unlabelled": 0}
