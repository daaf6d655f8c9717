"""The words e2e.js writes, in French (issue 48): the scripts take them from the page, which has them
in the reader's language, as they have no catalog of their own."""

import pytest

from pastes.models import Paste
from tests.browser import PHONE, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def french(browser):
    context = browser.new_context(viewport=PHONE, locale="fr-FR")  # Accept-Language: fr-FR
    context.set_default_timeout(10_000)
    yield context
    context.close()


def test_an_encrypted_paste_made_on_the_french_page_is_told_about_in_french(french, live_server, user):
    sign_in(french, live_server, user)
    page = french.new_page()
    page.goto(f"{live_server.url}/pastes/new")

    page.get_by_label("Nom").fill("Secrets")
    page.get_by_label("Contenu", exact=True).fill("mot de passe = 'cheval correct'\n")
    page.get_by_label("Chiffrer dans mon navigateur").check()
    page.get_by_role("button", name="Créer le texte").click()
    page.get_by_test_id("e2e-plain").wait_for()

    paste = Paste.objects.get()
    status = page.get_by_test_id("e2e-status")
    assert (
        status.inner_text()
        == "Déchiffré dans votre navigateur avec la clé du lien\u00a0; le serveur ne l'a jamais eue."
    )
    assert page.get_by_role("status").filter(has_text="Texte créé.").count() == 1
    page.get_by_role("button", name="Copier").click()
    page.wait_for_function("document.getElementById('copy-status').textContent !== ''")
    assert page.locator("#copy-status").inner_text() in (
        "Copié dans le presse-papiers.",
        "Appuyez sur Ctrl+C pour copier.",
    )

    # The same link without its key, then with a key that is not the paste's.
    page.goto(f"{live_server.url}/pastes/{paste.id}")
    assert status.inner_text() == (
        "Ce texte est chiffré de bout en bout, et ce lien n'a pas de clé (la partie après #key=)\u00a0: "
        "demandez le lien complet à qui vous l'a envoyé."
    )
    page.goto(f"{live_server.url}/pastes/{paste.id}#key=" + "A" * 43)
    page.reload()
    page.locator("#e2e-status.error").wait_for()
    assert status.inner_text().startswith("La clé de ce lien ne déchiffre pas ce texte\u00a0:")

    # The edit form, opened without the key, says so above the encrypted text.
    page.goto(f"{live_server.url}/pastes/{paste.id}/edit")
    assert page.locator("#e2e-note").inner_text().endswith("Ce que vous saisissez remplace le texte chiffré.")
