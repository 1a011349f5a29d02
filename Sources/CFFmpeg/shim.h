// FFmpeg's libavformat, libavcodec and libavutil: video clips demuxed and
// decoded in kioskd's process. Nothing links against them: every function
// called here is one of COnDemand's jumps, filled when the first clip is
// met (on_demand.c's AVUTIL_, AVCODEC_ and AVFORMAT_FUNCTIONS), so every
// helper below calls only functions in those lists.
#include <errno.h>
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>
#include <libavutil/display.h>
#include <libavutil/pixdesc.h>

// The error codes Swift cannot import (function-like macros).
static const int kiosk_av_error_again = AVERROR(EAGAIN);
static const int kiosk_av_error_eof = AVERROR_EOF;
static const int kiosk_av_error_memory = AVERROR(ENOMEM);
static const int kiosk_av_error_invalid = AVERROR_INVALIDDATA;
// avio_alloc_context's seek callback asks for the size with this `whence`.
static const int kiosk_avseek_size = AVSEEK_SIZE;
static const int kiosk_avseek_force = AVSEEK_FORCE;
static const int64_t kiosk_av_nopts = AV_NOPTS_VALUE;

// The stream's display matrix (a phone's rotation), or NULL: the
// stream's side data before FFmpeg 6.1 (5.1 is Debian 12's), the codec
// parameters' coded side data from 6.1 (libavcodec 60.31; 7.1 is Debian
// 13's), where the demuxers put it.
static inline const int32_t *kiosk_av_display_matrix(const AVStream *stream) {
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(60, 31, 100)
    const AVPacketSideData *data = av_packet_side_data_get(
        stream->codecpar->coded_side_data, stream->codecpar->nb_coded_side_data, AV_PKT_DATA_DISPLAYMATRIX);
    return data && data->size >= 36 ? (const int32_t *)data->data : NULL;
#else
    size_t size = 0;
    const uint8_t *data = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size);
    return data && size >= 36 ? (const int32_t *)data : NULL;
#endif
}

// A frame's duration in its stream's time base: `pkt_duration` before
// libavutil 58, `duration` after.
static inline int64_t kiosk_av_frame_duration(const AVFrame *frame) {
#if LIBAVUTIL_VERSION_MAJOR >= 58
    return frame->duration;
#else
    return frame->pkt_duration;
#endif
}

// One component of a pixel format's description (Swift sees `comp` as a tuple).
static inline AVComponentDescriptor kiosk_av_component(const AVPixFmtDescriptor *descriptor, int index) {
    return descriptor->comp[index];
}
