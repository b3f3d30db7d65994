// libvpx's VP8 and VP9 encoders for Cast Streaming (imported by CastMirroring only). The initialiser and
// the control call are macros (the latter variadic), and the encoded packet is a union: Swift reaches
// them through these functions.
#ifndef CASTOR_CVPX_SHIM_H
#define CASTOR_CVPX_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <vpx/vpx_encoder.h>
#include <vpx/vp8cx.h>

static inline vpx_codec_iface_t *castor_vpx_vp8(void) { return vpx_codec_vp8_cx(); }
static inline vpx_codec_iface_t *castor_vpx_vp9(void) { return vpx_codec_vp9_cx(); }

static inline vpx_codec_err_t castor_vpx_init(vpx_codec_ctx_t *ctx, vpx_codec_iface_t *iface, const vpx_codec_enc_cfg_t *cfg) {
    return vpx_codec_enc_init(ctx, iface, cfg, 0);
}

static inline vpx_codec_err_t castor_vpx_control_int(vpx_codec_ctx_t *ctx, int control, int value) {
    return vpx_codec_control_(ctx, control, value);
}

/// Encodes one I420 picture (NULL flushes); `flags` may hold VPX_EFLAG_FORCE_KF.
static inline vpx_codec_err_t castor_vpx_encode(vpx_codec_ctx_t *ctx, unsigned width, unsigned height, unsigned char *i420,
                                                int64_t pts, unsigned long duration, long flags) {
    if (i420 == NULL) return vpx_codec_encode(ctx, NULL, pts, duration, flags, VPX_DL_REALTIME);
    vpx_image_t image;
    if (vpx_img_wrap(&image, VPX_IMG_FMT_I420, width, height, 1, i420) == NULL) return VPX_CODEC_INVALID_PARAM;
    return vpx_codec_encode(ctx, &image, pts, duration, flags, VPX_DL_REALTIME);
}

/// The next encoded frame: its bytes and whether it is a key frame; 0 when there is none.
static inline int castor_vpx_next_frame(vpx_codec_ctx_t *ctx, vpx_codec_iter_t *iter, const void **data, size_t *size, int *key) {
    const vpx_codec_cx_pkt_t *packet;
    while ((packet = vpx_codec_get_cx_data(ctx, iter)) != NULL) {
        if (packet->kind != VPX_CODEC_CX_FRAME_PKT) continue;
        *data = packet->data.frame.buf;
        *size = packet->data.frame.sz;
        *key = (packet->data.frame.flags & VPX_FRAME_IS_KEY) != 0;
        return 1;
    }
    return 0;
}

static inline long castor_vpx_force_key_frame_flag(void) { return VPX_EFLAG_FORCE_KF; }
static inline int castor_vpx_cpuused_control(void) { return VP8E_SET_CPUUSED; }
static inline int castor_vpx_vp9_row_mt_control(void) { return VP9E_SET_ROW_MT; }
static inline int castor_vpx_cbr(void) { return VPX_CBR; }
static inline int castor_vpx_kf_auto(void) { return VPX_KF_AUTO; }

#endif
