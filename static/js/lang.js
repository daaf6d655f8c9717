// Pages whose <html> tag comes from a third-party template (Swagger UI's) get the site's language here.
document.documentElement.lang = document.documentElement.lang || "en";
