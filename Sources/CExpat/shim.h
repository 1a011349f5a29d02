// Expat (2.5 in Debian 12, 2.7 in Debian 13): the XML of a WebDAV server's
// PROPFIND answers, parsed as it streams, with its protection against
// entity expansion (billion laughs) on. Loaded on demand (COnDemand).
#pragma once
#include <expat.h>
