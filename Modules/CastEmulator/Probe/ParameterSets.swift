import CastDeviceProfiles

/// H.264 and HEVC sequence parameter sets, read far enough for the profile, level, picture size and
/// bit depth (ITU-T H.264 §7.3.2.1.1, H.265 §7.3.2.2). The input is a NAL unit (with its header),
/// emulation-prevention bytes included; at most 1 KiB of it is read.
enum ParameterSets {
    /// What a sequence parameter set says.
    struct Sequence: Sendable, Hashable {
        var profile: CodecProfile
        var level: CodecLevel?
        var width: Int
        var height: Int
        var bitDepth: Int
    }

    /// H.264 profiles whose SPS carries chroma format, bit depths and scaling matrices.
    private static let highProfiles: Set<UInt32> = [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135]

    /// An H.264 SPS NAL unit (`nal_unit_type` 7).
    static func h264(_ nal: ArraySlice<UInt8>) -> Sequence? {
        guard let header = nal.first, header & 0x1F == 7 else { return nil }
        var bits = BitReader(removingEmulationPrevention(nal.dropFirst()))
        do {
            let profileIDC = try bits.bits(8)
            let constraints = try bits.bits(8)
            let levelIDC = try bits.bits(8)
            _ = try bits.unsignedGolomb()  // seq_parameter_set_id
            var chromaFormat: UInt32 = 1
            var bitDepth = 8
            if highProfiles.contains(profileIDC) {
                chromaFormat = try bits.unsignedGolomb()
                guard chromaFormat <= 3 else { return nil }
                if chromaFormat == 3 { _ = try bits.flag() }  // separate_colour_plane_flag
                let lumaDepth = try bits.unsignedGolomb()
                guard lumaDepth <= 6 else { return nil }
                bitDepth = Int(lumaDepth) + 8
                _ = try bits.unsignedGolomb()  // bit_depth_chroma_minus8
                _ = try bits.flag()  // qpprime_y_zero_transform_bypass_flag
                if try bits.flag() {  // seq_scaling_matrix_present_flag
                    for list in 0..<(chromaFormat == 3 ? 12 : 8) {
                        if try bits.flag() { try skipScalingList(&bits, size: list < 6 ? 16 : 64) }
                    }
                }
            }
            _ = try bits.unsignedGolomb()  // log2_max_frame_num_minus4
            let pocType = try bits.unsignedGolomb()
            if pocType == 0 {
                _ = try bits.unsignedGolomb()
            } else if pocType == 1 {
                _ = try bits.flag()
                _ = try bits.signedGolomb()
                _ = try bits.signedGolomb()
                let cycle = try bits.unsignedGolomb()
                guard cycle <= 255 else { return nil }
                for _ in 0..<cycle { _ = try bits.signedGolomb() }
            }
            _ = try bits.unsignedGolomb()  // max_num_ref_frames
            _ = try bits.flag()  // gaps_in_frame_num_value_allowed_flag
            let widthInMacroblocks = Int(try bits.unsignedGolomb()) + 1
            let heightInMapUnits = Int(try bits.unsignedGolomb()) + 1
            let frameMacroblocksOnly = try bits.flag()
            if !frameMacroblocksOnly { _ = try bits.flag() }
            _ = try bits.flag()  // direct_8x8_inference_flag
            var crop = (left: 0, right: 0, top: 0, bottom: 0)
            if try bits.flag() {
                crop = (Int(try bits.unsignedGolomb()), Int(try bits.unsignedGolomb()),
                        Int(try bits.unsignedGolomb()), Int(try bits.unsignedGolomb()))
            }
            let cropX = chromaFormat == 1 || chromaFormat == 2 ? 2 : 1
            let cropY = (chromaFormat == 1 ? 2 : 1) * (frameMacroblocksOnly ? 1 : 2)
            let width = widthInMacroblocks * 16 - cropX * (crop.left + crop.right)
            let height = (frameMacroblocksOnly ? 1 : 2) * heightInMapUnits * 16 - cropY * (crop.top + crop.bottom)
            guard width > 0, height > 0, width <= 16_384, height <= 16_384 else { return nil }
            return Sequence(
                profile: .h264(profileIDC: Int(profileIDC), constraintSet1: constraints & 0x40 != 0),
                level: CodecLevel(h264LevelIDC: Int(levelIDC)), width: width, height: height, bitDepth: bitDepth)
        } catch {
            return nil
        }
    }

    private static func skipScalingList(_ bits: inout BitReader, size: Int) throws(ProbeStop) {
        var last = 8
        var next = 8
        for _ in 0..<size where next != 0 {
            let delta = try bits.signedGolomb()
            next = (last + delta + 256) % 256
            if next != 0 { last = next }
        }
    }

    /// An HEVC SPS NAL unit (`nal_unit_type` 33).
    static func hevc(_ nal: ArraySlice<UInt8>) -> Sequence? {
        guard let header = nal.first, (header >> 1) & 0x3F == 33 else { return nil }
        var bits = BitReader(removingEmulationPrevention(nal.dropFirst(2)))
        do {
            _ = try bits.bits(4)  // sps_video_parameter_set_id
            let subLayers = Int(try bits.bits(3))
            _ = try bits.flag()  // sps_temporal_id_nesting_flag
            // profile_tier_level(1, sps_max_sub_layers_minus1)
            _ = try bits.bits(3)  // general_profile_space, general_tier_flag
            let profileIDC = try bits.bits(5)
            try bits.skip(32 + 48)  // compatibility flags, constraint flags
            let levelIDC = try bits.bits(8)
            var profilePresent: [Bool] = []
            var levelPresent: [Bool] = []
            for _ in 0..<subLayers {
                profilePresent.append(try bits.flag())
                levelPresent.append(try bits.flag())
            }
            if subLayers > 0 { try bits.skip(2 * (8 - subLayers)) }
            for layer in 0..<subLayers {
                if profilePresent[layer] { try bits.skip(88) }
                if levelPresent[layer] { try bits.skip(8) }
            }
            _ = try bits.unsignedGolomb()  // sps_seq_parameter_set_id
            let chromaFormat = try bits.unsignedGolomb()
            guard chromaFormat <= 3 else { return nil }
            if chromaFormat == 3 { _ = try bits.flag() }
            var width = Int(try bits.unsignedGolomb())
            var height = Int(try bits.unsignedGolomb())
            if try bits.flag() {  // conformance_window_flag
                let subWidth = chromaFormat == 1 || chromaFormat == 2 ? 2 : 1
                let subHeight = chromaFormat == 1 ? 2 : 1
                let left = Int(try bits.unsignedGolomb()), right = Int(try bits.unsignedGolomb())
                let top = Int(try bits.unsignedGolomb()), bottom = Int(try bits.unsignedGolomb())
                width -= subWidth * (left + right)
                height -= subHeight * (top + bottom)
            }
            let lumaDepth = try bits.unsignedGolomb()
            guard width > 0, height > 0, width <= 16_384, height <= 16_384, lumaDepth <= 8 else { return nil }
            return Sequence(
                profile: .hevc(profileIDC: Int(profileIDC)), level: CodecLevel(hevcLevelIDC: Int(levelIDC)),
                width: width, height: height, bitDepth: Int(lumaDepth) + 8)
        } catch {
            return nil
        }
    }
}
