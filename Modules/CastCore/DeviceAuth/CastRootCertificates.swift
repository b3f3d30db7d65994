import Foundation

// The public Cast trust anchors, as DER, transcribed byte for byte from the C arrays in public
// Chromium / Open Screen sources (the same certificates ship in Chrome). Verified after transcription:
// each parses, is self-signed with a valid self-signature, and has the SHA-256 fingerprint below
// (checked again by `DeviceAuthRootCertificateTests`).
//
// - Cast Root CA: repository chromium-cheri/openscreen (mirror of Google's openscreen),
//   path cast/common/certificate/cast_root_ca_cert_der-inc.h, commit cfbb1b17ebf2eaf03e7c61903783b2ced735206f,
//   array kCastRootCaDer. Identical file: chromium/chromium
//   components/media_router/common/providers/cast/certificate/cast_root_ca_cert_der-inc.h.
//   C=US, ST=California, L=Mountain View, O=Google Inc, OU=Cast, CN=Cast Root CA; serial 2;
//   2014-04-02 17:34:26 UTC to 2034-03-28 17:34:26 UTC; RSA-2048, sha1WithRSAEncryption.
//   SHA-256 fingerprint 809af14700b3fe2611ad597eb1584d6354313b64ccdb3390f097fa3e5826d6ca.
// - Eureka Root CA: repository chromium-cheri/openscreen, path cast/common/certificate/eureka_root_ca_der-inc.h,
//   commit fc9e3bc11f266370fdcddc0fe4f54dbbcb3d9be2, array kEurekaRootCaDer.
//   C=US, ST=California, L=Mountain View, O=Google Inc, OU=Google TV, CN=Eureka Root CA; serial 1;
//   2012-12-17 22:39:33 UTC to 2032-12-12 22:39:33 UTC; RSA-2048, sha1WithRSAEncryption.
//   SHA-256 fingerprint caf6d1e37b532203e01a76bf07187bb731ccd38801565ab2211a2c0ab7f3bc46.
// - Cast CRL Root CA: repository chromium/chromium,
//   path components/media_router/common/providers/cast/certificate/cast_crl_root_ca_cert_der-inc.h,
//   commit 46eafd3a9eb43c35196dfc3e77731d8623bc086d, array kCastCRLRootCaDer.
//   C=US, ST=California, L=Mountain View, O=Google Inc, OU=Cast, CN=Cast CRL Root CA; serial 153;
//   2016-08-01 21:47:47 UTC to 2036-07-27 21:47:47 UTC; RSA-2048, sha256WithRSAEncryption.
//   SHA-256 fingerprint 8b77c60291f9d62764613083f49750b1c5caac2d9efbe5a28edf301f9d84831d.

/// The public Cast root certificates (DER), embedded from Chromium's sources.
package enum CastRootCertificates {
    /// `CN=Cast Root CA, OU=Cast, O=Google Inc` — anchors device certificate chains.
    package static let castRootCA: [UInt8] = decode([
        "MIIDxTCCAq2gAwIBAgIBAjANBgkqhkiG9w0BAQUFADB1MQswCQYDVQQGEwJVUzETMBEGA1UECAwKQ2FsaWZvcm5pYTEWMBQGA1UE",
        "BwwNTW91bnRhaW4gVmlldzETMBEGA1UECgwKR29vZ2xlIEluYzENMAsGA1UECwwEQ2FzdDEVMBMGA1UEAwwMQ2FzdCBSb290IENB",
        "MB4XDTE0MDQwMjE3MzQyNloXDTM0MDMyODE3MzQyNlowdTELMAkGA1UEBhMCVVMxEzARBgNVBAgMCkNhbGlmb3JuaWExFjAUBgNV",
        "BAcMDU1vdW50YWluIFZpZXcxEzARBgNVBAoMCkdvb2dsZSBJbmMxDTALBgNVBAsMBENhc3QxFTATBgNVBAMMDENhc3QgUm9vdCBD",
        "QTCCASIwDQYJKoZIhvcNAQEBBQADggEPADCCAQoCggEBALrZZZ3aOdPBd/bU0K6PWAhoOUqV7XDP/XkIqarl6binLaBnR4qeyc9w",
        "swWHaRHscJiXw+bDw+u9xrA9/E/BXjif2s9zMAZbeTfBXoyHR5SaQZIq1pXEcVwnXQixgMaSvRvjQZeh7HWfVZ4+n48cx2VkB9Oz",
        "lqEEn5HE3gp7bNnIwHgxoBlCqeiD48788c7CLiRGlQkZysBGsuUButdP87/2aa2ZBPqgBzkO5t9RRwfA5KlcS5TFL7OgMH/nlWuy",
        "rzIN8YzVbct7R6cIq8sno03PSlrxBdH4YsUQKnRpquZLlvub2GPkWGbTrYpu/3te+aVWHi2CMVvw4iTmQUofrhMCAwEAAaNgMF4w",
        "DwYDVR0TBAgwBgEB/wIBAjAdBgNVHQ4EFgQUfJoefd95VLzXzF7KmYZFeWV0KBkwHwYDVR0jBBgwFoAUfJoefd95VLzXzF7KmYZF",
        "eWV0KBkwCwYDVR0PBAQDAgEGMA0GCSqGSIb3DQEBBQUAA4IBAQCA9Fr7PSgZUSDX1PsSl0pl8lg1kncwavHXtlEaf5rNx3sDQq1V",
        "agCv8OEGwr1reHXb/kERU0o5u5o6xlk0Lywz47LWXH/deOtxWznag5DFMeI/I+/a6ystd17ew0PSyWtZgsrV7fqhZFvL8Q0aYuGc",
        "6KcYcPBfF5b47Ybbrh3gzz5dLu4WbZUrPP2X8wVaJGhNObb45Fi69eAmeFHFW11OCeVsR4t6Wi6JU+bMNlsmPPhyQwKC0ivN8NOj",
        "7BM+UtWDPQfcHUNlejMCAaPOt9ZgUTsJwiOKMv6YGWBik4XNNEbb1SMPedp3ACoCbYNYzgN3NeGjIJPCSqKkRhx1LB9N",
    ])

    /// `CN=Eureka Root CA, OU=Google TV, O=Google Inc` — anchors older device certificate chains.
    package static let eurekaRootCA: [UInt8] = decode([
        "MIIDwzCCAqugAwIBAgIBATANBgkqhkiG9w0BAQUFADB8MQswCQYDVQQGEwJVUzETMBEGA1UECAwKQ2FsaWZvcm5pYTEWMBQGA1UE",
        "BwwNTW91bnRhaW4gVmlldzETMBEGA1UECgwKR29vZ2xlIEluYzESMBAGA1UECwwJR29vZ2xlIFRWMRcwFQYDVQQDDA5FdXJla2Eg",
        "Um9vdCBDQTAeFw0xMjEyMTcyMjM5MzNaFw0zMjEyMTIyMjM5MzNaMHwxCzAJBgNVBAYTAlVTMRMwEQYDVQQIDApDYWxpZm9ybmlh",
        "MRYwFAYDVQQHDA1Nb3VudGFpbiBWaWV3MRMwEQYDVQQKDApHb29nbGUgSW5jMRIwEAYDVQQLDAlHb29nbGUgVFYxFzAVBgNVBAMM",
        "DkV1cmVrYSBSb290IENBMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAuRHQ6hLcMuHfXDNrGXMdnZ7QOXa/pYQJpv1u",
        "bencjzZO6YgCvZ/06ET9TPWaAlZqRypjbFhFzHxmJNx5ecMqpLKLoPeitc0Gftu+7AyG8g0kYHSEyikjhALYp+078ewmR1TjsS3m",
        "ZA/2csXpmFIXwPzyLCDIQPhHyTKeO5exi/WYJHBjZhnBUugEBT1fjbzYS693mG8feNG2UCdN5OwUaWcfWK+poBEmPJQyB3/X6Wkf",
        "rj9PY4qPidbyGXhcIY6xtlfYwOHufW7d8ToKavG6//mDL9y1pCAXYzbvyGIZzFbOsuoxiUt4WMG/AxOZ4BLyiKqblNrddnkXHjTR",
        "CsQHRQIDAQABo1AwTjAdBgNVHQ4EFgQURE4qR1jYuUiR9k/OdKkdMpqNjekwHwYDVR0jBBgwFoAURE4qR1jYuUiR9k/OdKkdMpqN",
        "jekwDAYDVR0TBAUwAwEB/zANBgkqhkiG9w0BAQUFAAOCAQEAP8gmoG5cBUB5oZipM95odIXurrccM1mwEd6f9E/T61EJfUd+blGF",
        "9FTNg5glsbqwV+yT2xLi7FFJepZzm8iWbYWM0+E8+jLiWAx3bYcMNAGqMKl24MDn214b6RAwpOAJSSa5WM1aB+VQdd6aO/ZTfrFT",
        "XkUnTxfjCDOyUAq79PwllyneQXUw+nc4qmWKc0/qEXvrfBdgJw68PnZS2IvtGvjrN7sR/a5wFwr+4K0Gsx9pinIEwsAzC9YvY0wz",
        "ERS4YjaIxQNlARmj7wC7bw6S/zQcodYx0Fxen5l9x8q9fHIL9Fylfm4EqNKZLFEBFP6iSPB+voQNtNPi8w593ov1Mw==",
    ])

    /// `CN=Cast CRL Root CA, OU=Cast, O=Google Inc` — anchors the signers of Cast CRLs.
    package static let castCRLRootCA: [UInt8] = decode([
        "MIIDzjCCAragAwIBAgICAJkwDQYJKoZIhvcNAQELBQAweTELMAkGA1UEBhMCVVMxEzARBgNVBAgMCkNhbGlmb3JuaWExFjAUBgNV",
        "BAcMDU1vdW50YWluIFZpZXcxEzARBgNVBAoMCkdvb2dsZSBJbmMxDTALBgNVBAsMBENhc3QxGTAXBgNVBAMMEENhc3QgQ1JMIFJv",
        "b3QgQ0EwHhcNMTYwODAxMjE0NzQ3WhcNMzYwNzI3MjE0NzQ3WjB5MQswCQYDVQQGEwJVUzETMBEGA1UECAwKQ2FsaWZvcm5pYTEW",
        "MBQGA1UEBwwNTW91bnRhaW4gVmlldzETMBEGA1UECgwKR29vZ2xlIEluYzENMAsGA1UECwwEQ2FzdDEZMBcGA1UEAwwQQ2FzdCBD",
        "UkwgUm9vdCBDQTCCASIwDQYJKoZIhvcNAQEBBQADggEPADCCAQoCggEBAMJ/wAkh02CJKLWWbv6mrf6u4GY1vZlu6JOFKbreRF2o",
        "a/zmzDfdHQ/PHjoyLH/gG8m7TDSpHJe1+G1CnE0GaqAtlVU/eB1cq+k6pgg7Wq/0q1N3FJprsjcuzW7qvCJdVlVz/b0DL1Ref4vB",
        "dDYaGB9k3r8IgEoSDElTuMc721/cWXcvuDoFiva3RyqbdGMIMRLme0TRwXzIh7hQY22f17o2U3JHX9xDQ+vXLhHRinqkA/Jq04jm",
        "p7idgbKwiCTIofqwqtsIZD6LKgdcWoIFmcLVylJ1Iaf6xaHarPf+0MdEdprra9O99Hoxpq0vWsQxOm3x3XtEgTfPE4Vdlq57lisC",
        "AwEAAaNgMF4wDwYDVR0TBAgwBgEB/wIBATAdBgNVHQ4EFgQUGmUStKm5tPyRDJ5n4FvZya1EHLkwHwYDVR0jBBgwFoAUGmUStKm5",
        "tPyRDJ5n4FvZya1EHLkwCwYDVR0PBAQDAgIEMA0GCSqGSIb3DQEBCwUAA4IBAQCvX4vA98UmiLms9+xND3ar4nSaRDwz9nQ9BCpZ",
        "dqIFJ8TjosjCr379vrnK6VuoKs2nHg438W+EXqpCH7rwRLrbh2FokbsdXDrwjgIgdqpHmcdzDZAySrnj/RGLXb0iTQV1F2Gipk+w",
        "PVKOqsm0jQVaHDbBe4f3+OSBNifsNa65zhVH4RDJFmk6Io5jGDHMO1ZpxtQk3ZUlzzTmAK7hhx7uDBTcDYKBMR+PbdLA4XwS953K",
        "AuN2NkRTOodxfe0yTKSW5uUsxw23lsDzfeVYMvclJcATdtB2bHOrPRXNxeiFFZoCUulhQeJmAcVx5dvApbNMHqyTijVMTdpXIiQd",
        "Ova9",
    ])

    /// Joins and decodes base64 lines (the literals above are known-good; an empty array would fail the tests).
    private static func decode(_ lines: [String]) -> [UInt8] {
        Data(base64Encoded: lines.joined()).map { Array($0) } ?? []
    }
}
