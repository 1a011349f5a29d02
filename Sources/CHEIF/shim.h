// libheif: HEIF containers (HEIC through its libde265 decoder plugin).
#include <libheif/heif.h>
