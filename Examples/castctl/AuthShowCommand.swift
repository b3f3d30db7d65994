import ArgumentParser
import CastJSON
import CastTLS
import Foundation

/// `castctl auth show HOST`: connect, challenge, and print what the device answered and the verdict.
struct AuthShow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Challenge a device and print its certificate chain, policies, CRL and the verdict.",
        discussion: """
            Connects over TLS, sends the device-authentication challenge as Chrome does, waits for the answer \
            (at most --timeout seconds in all), and verifies it at the current time. The TLS certificate, \
            every certificate of the chain the device sent, the CRL it sent and the verdict are printed; \
            the exit status is 0 only when the device is verified (SUCCESS).
            """)

    @Argument(help: "The device's address (IPv4, IPv6 or host name).")
    var host: String?

    @Option(name: .long, help: "The device's Cast port.")
    var port: Int = 8009

    @Option(name: .long, help: "The device's friendly name or UUID, found through mDNS discovery (instead of HOST).")
    var device: String?

    @Option(name: .long, help: "Seconds for the whole exchange: connecting, the challenge and the answer.")
    var timeout: Double = 10

    @Option(name: .long, help: "The hash to ask the device to sign with: sha256 or sha1.")
    var hash: CastDeviceAuthHashAlgorithm = .sha256

    @Flag(name: .long, help: "Fail without a CRL that verifies.")
    var requireCRL = false

    @OptionGroup var trust: AuthTrustOptions

    func validate() throws {
        guard (host != nil) != (device != nil) else { throw ValidationError("Give exactly one of HOST and --device") }
        guard timeout > 0 else { throw ValidationError("--timeout must be positive") }
    }

    func run() async throws {
        try await AuthInput.run {
            let budget = Duration.milliseconds(Int64(timeout * 1000))
            let deadline = ContinuousClock.now + budget
            let authenticator = CastDeviceAuthenticator(
                trustStore: try trust.trustStore(), policy: CastDeviceAuthPolicy(mode: .require, requireCRL: requireCRL))
            let target: (host: String, port: Int)
            if let host {
                target = (host, port)
            } else {
                target = try await DeviceResolver.resolve(device ?? "", timeout: min(budget, .seconds(5)))
            }
            let transport = try await TLSCastTransport.connect(
                host: target.host, port: target.port,
                configuration: .init(connectTimeout: max(deadline - ContinuousClock.now, .milliseconds(1))))
            let challenge = authenticator.makeChallenge(hashAlgorithm: hash)
            let reply: CastMessage?
            do {
                try transport.send(challenge.message)
                reply = try await Self.firstAuthMessage(on: transport, until: deadline)
            } catch {
                await transport.close()
                throw error
            }
            await transport.close()
            let report = Report(
                target: "\(target.host):\(target.port)", challenge: challenge, reply: reply,
                peerCertificateDER: transport.peerCertificateDER, authenticator: authenticator, now: Date())
            report.print(json: trust.json)
            return report.result
        }
    }

    /// The first message on the device-auth namespace, or `nil` when the connection ends or `deadline` passes first
    /// (the transport is then closed, which ends its inbound stream).
    static func firstAuthMessage(on transport: TLSCastTransport, until deadline: ContinuousClock.Instant) async throws -> CastMessage? {
        try await withThrowingTaskGroup(of: CastMessage?.self) { group in
            group.addTask {
                for try await message in transport.inbound where CastDeviceAuthenticator.isDeviceAuthMessage(message) {
                    return message
                }
                return nil
            }
            group.addTask {
                try? await Task.sleep(until: deadline, clock: .continuous)
                return nil
            }
            let first = try await group.next() ?? nil
            if first == nil { await transport.close() }
            group.cancelAll()
            return first
        }
    }
}

/// What `auth show` found out, printed as text or JSON.
private struct Report {
    let target: String
    let tlsCertificate: CastDeviceCertificateInfo?
    let response: CastDeviceAuthResponse?
    let chain: [CastDeviceCertificateInfo]
    let crl: Result<CastDeviceCRLInfo, CastDeviceAuthError>?
    let nonce: CastDeviceAuthResult.NonceCheck?
    let verdict: Result<CastDeviceAuthResult, CastDeviceAuthError>

    var result: CastDeviceVerificationResult {
        if case .failure(let error) = verdict { return CastDeviceVerificationResult(error) }
        return .success
    }

    init(
        target: String, challenge: CastDeviceAuthChallenge, reply: CastMessage?, peerCertificateDER: [UInt8]?,
        authenticator: CastDeviceAuthenticator, now: Date
    ) {
        self.target = target
        tlsCertificate = peerCertificateDER.flatMap { try? CastDeviceCertificateInfo(der: $0) }
        var payload: [UInt8]?
        if let reply, case .binary(let bytes) = reply.payload { payload = Array(bytes) }
        response = payload.flatMap { try? CastDeviceAuthResponse(payload: $0) }
        chain = response?.certificateChainDER.compactMap { try? CastDeviceCertificateInfo(der: $0) } ?? []
        crl = response?.crlBundle.map { bundle in Result { () throws(CastDeviceAuthError) in try authenticator.verifyCRL(bundle, at: now) } }
        nonce = response.map { response in
            guard let echoed = response.senderNonce else { return .missing }
            return echoed == challenge.nonce ? .matched : .mismatched
        }
        verdict = Result { () throws(CastDeviceAuthError) in
            try authenticator.verify(
                reply: reply ?? challenge.message, to: challenge, peerCertificateDER: peerCertificateDER ?? [], now: now)
        }.flatMapError { error in
            // No answer at all, or no TLS certificate, say so rather than what verifying nothing would say.
            if reply == nil { return .failure(CastDeviceAuthError(code: .noResponse, message: "The device did not answer the challenge")) }
            if peerCertificateDER == nil {
                return .failure(CastDeviceAuthError(code: .invalidTLSCertificate, message: "The TLS peer presented no certificate"))
            }
            return .failure(error)
        }
    }

    func print(json: Bool) {
        let error: CastDeviceAuthError? = if case .failure(let error) = verdict { error } else { nil }
        let message: String
        switch verdict {
        case .success(let verified): message = CastDeviceAuthStatus.verified(verified).description
        case .failure(let error): message = error.message
        }
        if json {
            var object: [String: JSONValue] = [
                "result": .string(result.rawValue), "code": error.map { .string($0.code.description) } ?? .null,
                "message": .string(message), "device": .string(target),
                "tlsCertificate": tlsCertificate.map(Self.json) ?? .null,
                "chain": .array(chain.map(Self.json)),
                "nonce": nonce.map { .string($0.rawValue) } ?? .null,
                "hash": response.map { .string($0.hashAlgorithm.rawValue) } ?? .null,
            ]
            if case .success(let verified) = verdict, let path = verified.certificatePath {
                object["path"] = .array(path.certificates.map { .string($0.commonName ?? "") })
                object["audioOnly"] = .bool(path.isAudioOnly)
            }
            switch crl {
            case nil: object["crl"] = .null
            case .success(let info): object["crl"] = Self.json(info)
            case .failure(let problem): object["crl"] = ["verified": false, "problem": .string(problem.description)]
            }
            Swift.print(JSONValue.object(object).serialized())
            return
        }
        var lines = ["device: \(target)"]
        if let tlsCertificate {
            lines.append("TLS certificate: \(tlsCertificate.subject), valid \(Self.date(tlsCertificate.notBefore)) to \(Self.date(tlsCertificate.notAfter))")
        }
        if response != nil {
            lines.append("chain (as sent, device first):")
            for (index, certificate) in chain.enumerated() {
                lines.append("  [\(index)] \(certificate.subject)")
                lines.append("      issuer \(certificate.issuer)")
                lines.append("      serial \(certificate.serialNumber), valid \(Self.date(certificate.notBefore)) to \(Self.date(certificate.notAfter)), "
                    + "\(certificate.publicKeyAlgorithm) \(certificate.publicKeyBits)\(certificate.isCertificateAuthority ? ", CA" : "")")
                if !certificate.policies.isEmpty {
                    let names = certificate.policies.map { $0 == CastDeviceAuthResult.audioOnlyPolicyOID ? "\($0) (audio-only)" : $0 }
                    lines.append("      policies \(names.joined(separator: ", "))")
                }
                lines.append("      sha256 \(certificate.sha256Fingerprint)")
            }
            switch crl {
            case nil: lines.append("CRL: none")
            case .success(let info):
                lines.append("CRL: verified, valid \(Self.date(info.notBefore)) to \(Self.date(info.notAfter)) (usable until \(Self.date(info.usableUntil))), "
                    + "signed by '\(info.signer.commonName ?? "?")', revokes \(info.revokedPublicKeyCount) key(s) and "
                    + "\(info.revokedSerialRangeCount) serial range(s)")
            case .failure(let problem): lines.append("CRL: does not verify: \(problem.description)")
            }
            if let response {
                lines.append("nonce: \(nonce?.rawValue ?? "?"), hash: \(response.hashAlgorithm.rawValue.uppercased())")
            }
        }
        if case .success(let verified) = verdict, let path = verified.certificatePath {
            lines.append("path: " + path.certificates.map { "'\($0.commonName ?? "?")'" }.joined(separator: " → ")
                + (path.isAudioOnly ? " (audio-only)" : ""))
        }
        lines.append("result: \(result)\(error.map { " (\($0.code))" } ?? ""): \(message)")
        Swift.print(lines.joined(separator: "\n"))
    }

    static func json(_ certificate: CastDeviceCertificateInfo) -> JSONValue {
        [
            "subject": .string(certificate.subject), "issuer": .string(certificate.issuer),
            "commonName": certificate.commonName.map(JSONValue.string) ?? .null, "serialNumber": .string(certificate.serialNumber),
            "notBefore": .string(date(certificate.notBefore)), "notAfter": .string(date(certificate.notAfter)),
            "publicKey": .string("\(certificate.publicKeyAlgorithm) \(certificate.publicKeyBits)"),
            "isCA": .bool(certificate.isCertificateAuthority), "policies": .array(certificate.policies.map(JSONValue.string)),
            "sha256": .string(certificate.sha256Fingerprint),
        ]
    }

    static func json(_ crl: CastDeviceCRLInfo) -> JSONValue {
        [
            "verified": true, "notBefore": .string(date(crl.notBefore)), "notAfter": .string(date(crl.notAfter)),
            "usableUntil": .string(date(crl.usableUntil)), "signer": .string(crl.signer.subject),
            "revokedPublicKeys": .number(Double(crl.revokedPublicKeyCount)),
            "revokedSerialRanges": .number(Double(crl.revokedSerialRangeCount)),
        ]
    }

    static func date(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }
}
