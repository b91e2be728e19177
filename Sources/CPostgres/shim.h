#ifndef OPENMARKET_CPOSTGRES_SHIM_H
#define OPENMARKET_CPOSTGRES_SHIM_H
/* libpq, PostgreSQL's own client library (Debian's libpq-dev): the shared state's store. */
#include <libpq-fe.h>
#endif
