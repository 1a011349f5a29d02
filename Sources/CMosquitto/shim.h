// libmosquitto (Eclipse Mosquitto's client library, 2.0): an MQTT client
// whose socket and loop steps its caller drives from its own event loop.
#include <mosquitto.h>
