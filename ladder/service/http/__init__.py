"""The service's HTTP side: the FastAPI app (:mod:`~ladder.service.http.app`), its routes,
middlewares, failure handlers, schema, access control, version pins and the /play page."""
