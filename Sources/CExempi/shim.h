#include <exempi-2.0/exempi/xmp.h>
