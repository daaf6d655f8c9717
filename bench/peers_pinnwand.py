"""pinnwand for bench/peers.py, run by the Python of pinnwand's own virtual environment.

    python bench/peers_pinnwand.py seed COUNT CONTENT_FILE   # prints the slugs, one JSON list
    python bench/peers_pinnwand.py serve PORT PROCESSES

The database is PINNWAND_DATABASE_URI (SQLAlchemy's URL). `pinnwand http` serves one process;
`serve` serves as many, as Tornado's documentation shows: bind the socket, then fork, then
start each process's own loop and connection pool. Rate limits are lifted, as the bench lifts ours.
"""

import json
import os
import sys
from datetime import timedelta

from pinnwand import configuration

configuration.database_uri = os.environ["PINNWAND_DATABASE_URI"]
configuration.ratelimit = {
    area: {"capacity": 10**12, "consume": 1, "refill": 10**12} for area in ("read", "create", "delete")
}

from pinnwand import database, utility  # noqa: E402 (after the configuration they read at import)


def seed(count: int, content: str) -> list[str]:
    database.Base.metadata.create_all(database._engine)
    slugs = []
    with database.session() as session:
        for _ in range(count):
            paste = database.Paste(utility.slug_create(auto_scale=False), expiry=int(timedelta(days=7).total_seconds()))
            paste.files.append(database.File(paste.slug, content, lexer="python"))
            session.add(paste)
            slugs.append(paste.slug)
        session.commit()
    return slugs


def serve(port: int, processes: int) -> None:
    import tornado.httpserver
    import tornado.ioloop
    import tornado.netutil
    import tornado.process
    from pinnwand.http import make_application

    sockets = tornado.netutil.bind_sockets(port, address="127.0.0.1")
    database._engine.dispose()  # no connection crosses the fork
    tornado.process.fork_processes(processes)
    server = tornado.httpserver.HTTPServer(make_application(False), xheaders=True)
    server.add_sockets(sockets)
    tornado.ioloop.IOLoop.current().start()


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    if command == "seed":
        with open(args[1], encoding="utf-8") as file:
            print(json.dumps(seed(int(args[0]), file.read())))
    else:
        serve(int(args[0]), int(args[1]))
