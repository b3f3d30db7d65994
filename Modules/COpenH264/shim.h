// Cisco's OpenH264 encoder for Cast Streaming (imported by CastMirroring only). Its C interface is a table of
// function pointers and its output a list of layers of NAL units inside the encoder's memory: Swift reaches
// them through these functions, which own the encoder and the output description together.
#ifndef CASTOR_COPENH264_SHIM_H
#define CASTOR_COPENH264_SHIM_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <wels/codec_api.h>

typedef struct castor_h264 {
    ISVCEncoder *encoder;
    SFrameBSInfo output;
} castor_h264;

static inline void castor_h264_destroy(castor_h264 *h264) {
    if (h264 == NULL) return;
    if (h264->encoder != NULL) {
        (*h264->encoder)->Uninitialize(h264->encoder);
        WelsDestroySVCEncoder(h264->encoder);
    }
    free(h264);
}

/// A real-time encoder: one spatial and temporal layer, one slice, CAVLC (Constrained Baseline, which every
/// Cast device decodes), bit-rate control without skipping frames, an IDR every `intra_period` pictures.
/// NULL when OpenH264 refuses the settings.
static inline castor_h264 *castor_h264_create(int width, int height, float frame_rate, int bit_rate, int threads,
                                              unsigned intra_period) {
    castor_h264 *h264 = calloc(1, sizeof *h264);
    if (h264 == NULL) return NULL;
    if (WelsCreateSVCEncoder(&h264->encoder) != 0 || h264->encoder == NULL) {
        free(h264);
        return NULL;
    }
    SEncParamExt parameters;
    memset(&parameters, 0, sizeof parameters);
    (*h264->encoder)->GetDefaultParams(h264->encoder, &parameters);
    parameters.iUsageType = CAMERA_VIDEO_REAL_TIME;
    parameters.iPicWidth = width;
    parameters.iPicHeight = height;
    parameters.iTargetBitrate = bit_rate;
    parameters.iMaxBitrate = UNSPECIFIED_BIT_RATE;
    parameters.iRCMode = RC_BITRATE_MODE;
    parameters.fMaxFrameRate = frame_rate;
    parameters.iSpatialLayerNum = 1;
    parameters.iTemporalLayerNum = 1;
    parameters.iMultipleThreadIdc = (unsigned short)threads;
    parameters.uiIntraPeriod = intra_period;
    parameters.eSpsPpsIdStrategy = CONSTANT_ID;
    parameters.bEnableFrameSkip = false;
    parameters.iEntropyCodingModeFlag = 0;
    parameters.sSpatialLayers[0].iVideoWidth = width;
    parameters.sSpatialLayers[0].iVideoHeight = height;
    parameters.sSpatialLayers[0].fFrameRate = frame_rate;
    parameters.sSpatialLayers[0].iSpatialBitrate = bit_rate;
    parameters.sSpatialLayers[0].iMaxSpatialBitrate = UNSPECIFIED_BIT_RATE;
    parameters.sSpatialLayers[0].uiProfileIdc = PRO_BASELINE;
    parameters.sSpatialLayers[0].sSliceArgument.uiSliceMode = SM_SINGLE_SLICE;
    if ((*h264->encoder)->InitializeExt(h264->encoder, &parameters) != cmResultSuccess) {
        castor_h264_destroy(h264);
        return NULL;
    }
    int format = videoFormatI420;
    (*h264->encoder)->SetOption(h264->encoder, ENCODER_OPTION_DATAFORMAT, &format);
    return h264;
}

static inline int castor_h264_set_bit_rate(castor_h264 *h264, int bit_rate) {
    SBitrateInfo info;
    info.iLayer = SPATIAL_LAYER_ALL;
    info.iBitrate = bit_rate;
    return (*h264->encoder)->SetOption(h264->encoder, ENCODER_OPTION_BITRATE, &info);
}

/// Encodes one I420 picture. On success, `size` is the length of the Annex B access unit (0 when the encoder
/// produced none) and `key` whether it is an IDR or I picture; castor_h264_copy then copies it out.
static inline int castor_h264_encode(castor_h264 *h264, int width, int height, unsigned char *i420, long long milliseconds,
                                     int force_idr, size_t *size, int *key) {
    if (force_idr) (*h264->encoder)->ForceIntraFrame(h264->encoder, true);
    SSourcePicture picture;
    memset(&picture, 0, sizeof picture);
    picture.iColorFormat = videoFormatI420;
    picture.iPicWidth = width;
    picture.iPicHeight = height;
    picture.iStride[0] = width;
    picture.iStride[1] = width / 2;
    picture.iStride[2] = width / 2;
    picture.pData[0] = i420;
    picture.pData[1] = i420 + (size_t)width * height;
    picture.pData[2] = picture.pData[1] + (size_t)(width / 2) * (height / 2);
    picture.uiTimeStamp = milliseconds;
    memset(&h264->output, 0, sizeof h264->output);
    int status = (*h264->encoder)->EncodeFrame(h264->encoder, &picture, &h264->output);
    if (status != cmResultSuccess) return status;
    *key = h264->output.eFrameType == videoFrameTypeIDR || h264->output.eFrameType == videoFrameTypeI;
    size_t total = 0;
    if (h264->output.eFrameType != videoFrameTypeSkip && h264->output.eFrameType != videoFrameTypeInvalid) {
        for (int layer = 0; layer < h264->output.iLayerNum; layer++) {
            const SLayerBSInfo *info = &h264->output.sLayerInfo[layer];
            for (int nal = 0; nal < info->iNalCount; nal++) total += (size_t)info->pNalLengthInByte[nal];
        }
    }
    *size = total;
    return 0;
}

/// Copies the access unit of the last castor_h264_encode (its layers' NAL units, start codes included).
static inline void castor_h264_copy(const castor_h264 *h264, unsigned char *out) {
    for (int layer = 0; layer < h264->output.iLayerNum; layer++) {
        const SLayerBSInfo *info = &h264->output.sLayerInfo[layer];
        size_t length = 0;
        for (int nal = 0; nal < info->iNalCount; nal++) length += (size_t)info->pNalLengthInByte[nal];
        memcpy(out, info->pBsBuf, length);
        out += length;
    }
}

#endif
