// The kernel's HDMI-CEC API (linux-libc-dev): the adapter ioctls and the
// message builders of cec-funcs.h (cec_msg_standby, cec_msg_image_view_on,
// cec_msg_active_source), which Swift calls as ordinary functions.
#include <sys/ioctl.h>
#include <linux/cec.h>
#include <linux/cec-funcs.h>

// The ioctl numbers are function-like macros, which Swift cannot import.
static const unsigned long kioskd_CEC_ADAP_G_CAPS = CEC_ADAP_G_CAPS;
static const unsigned long kioskd_CEC_ADAP_G_PHYS_ADDR = CEC_ADAP_G_PHYS_ADDR;
static const unsigned long kioskd_CEC_ADAP_G_LOG_ADDRS = CEC_ADAP_G_LOG_ADDRS;
static const unsigned long kioskd_CEC_ADAP_S_LOG_ADDRS = CEC_ADAP_S_LOG_ADDRS;
static const unsigned long kioskd_CEC_ADAP_G_CONNECTOR_INFO = CEC_ADAP_G_CONNECTOR_INFO;
static const unsigned long kioskd_CEC_S_MODE = CEC_S_MODE;
static const unsigned long kioskd_CEC_TRANSMIT = CEC_TRANSMIT;
static const unsigned long kioskd_CEC_RECEIVE = CEC_RECEIVE;
static const unsigned long kioskd_CEC_DQEVENT = CEC_DQEVENT;
