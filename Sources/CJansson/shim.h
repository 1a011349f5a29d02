// Jansson (2.14 in Debian 12 and 13): the JSON of an Immich server's
// answers, parsed whole, strictly (UTF-8 checked, duplicate keys refused,
// nesting bounded by its parser). Loaded on demand (COnDemand).
#pragma once
#include <jansson.h>
