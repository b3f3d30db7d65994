#!/usr/bin/env python3
"""Converts Open Screen's device-certificate test suite (testsuite/testsuite1.pb, a serialized
`cast.certificate.DeviceCertTestSuite`, see README.md) into testsuite/testsuite1.json, which the
Swift conformance tests and the castctl end-to-end test read.

Standard library only: the five message fields are decoded from the protobuf wire format by hand,
so no protoc or generated code is needed. Run it from anywhere:

    python3 Tests/CastTLSTests/OpenScreen/convert_testsuite.py          # rewrite the JSON
    python3 Tests/CastTLSTests/OpenScreen/convert_testsuite.py --check  # fail if it is stale

Output, per case (field numbers from cast/common/certificate/proto/test_suite.proto):
  description       (1)  the suite's own text
  expectedResult    (4)  one of the six VerificationResult names
  certificatePath   (2)  base64 DER, device certificate first, root excluded
  crlBundle         (3)  base64 serialized cast.certificate.CrlBundle, or null when absent
  certificateTime   (5)  Unix seconds (0 when absent, as the proto2 default)
  crlTime           (6)  Unix seconds, or null: then the CRL is verified at certificateTime
  trustAnchors      (7)  "test" (cast_test_root_ca.pem + cast_crl_test_root_ca.pem, the default)
                         or "production" (Cast Root CA, Eureka Root CA + Cast CRL Root CA)
  crlPolicy              "required" or "optional" (derived, see below)

The suite does not store whether revocation checking is required: Google's runner
(cast/common/certificate/cast_crl_unittest.cc, RunTest) derives it from the expected result —
required for REVOCATION_CHECK_FAILED, CRL_EXPIRED_AFTER_INITIAL_VERIFICATION and
REVOCATION_CHECK_FAILED_WITHOUT_CRL, and for SUCCESS exactly when the case carries a CRL bundle;
optional for PATH_VERIFICATION_FAILED (no case carries a bundle). CRL_VERIFICATION_FAILED cases
only verify the bundle there; they all carry one, so the single rule below reproduces the runner:
the CRL is required when the case carries a bundle or expects REVOCATION_CHECK_FAILED_WITHOUT_CRL.
"""

import base64
import hashlib
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "testsuite", "testsuite1.pb")
TARGET = os.path.join(HERE, "testsuite", "testsuite1.json")

RESULTS = {
    1: "SUCCESS",
    2: "PATH_VERIFICATION_FAILED",
    3: "CRL_VERIFICATION_FAILED",
    4: "REVOCATION_CHECK_FAILED",
    5: "REVOCATION_CHECK_FAILED_WITHOUT_CRL",
    6: "CRL_EXPIRED_AFTER_INITIAL_VERIFICATION",
}


def read_varint(data, offset):
    value, shift = 0, 0
    while True:
        if offset >= len(data):
            raise ValueError("truncated varint")
        byte = data[offset]
        offset += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, offset
        if shift > 63:
            raise ValueError("varint longer than 64 bits")


def read_fields(data):
    """Yields (field number, value) for varint (int) and length-delimited (bytes) fields."""
    offset = 0
    while offset < len(data):
        key, offset = read_varint(data, offset)
        number, wire_type = key >> 3, key & 7
        if wire_type == 0:
            value, offset = read_varint(data, offset)
        elif wire_type == 2:
            length, offset = read_varint(data, offset)
            if offset + length > len(data):
                raise ValueError("truncated length-delimited field %d" % number)
            value, offset = data[offset:offset + length], offset + length
        else:
            raise ValueError("unexpected wire type %d for field %d" % (wire_type, number))
        yield number, value


def convert_case(index, raw):
    case = {"description": None, "expectedResult": None, "certificatePath": [], "crlBundle": None,
            "certificateTime": 0, "crlTime": None, "trustAnchors": "test"}
    for number, value in read_fields(raw):
        if number == 1:
            case["description"] = value.decode("utf-8")
        elif number == 2:
            case["certificatePath"].append(base64.b64encode(value).decode("ascii"))
        elif number == 3:
            case["crlBundle"] = base64.b64encode(value).decode("ascii")
        elif number == 4:
            if value not in RESULTS:
                raise ValueError("case %d: unknown expected result %d" % (index, value))
            case["expectedResult"] = RESULTS[value]
        elif number == 5:
            case["certificateTime"] = value
        elif number == 6:
            case["crlTime"] = value if value != 0 else None
        elif number == 7:
            case["trustAnchors"] = "test" if value else "production"
        else:
            raise ValueError("case %d: unknown field %d" % (index, number))
    if case["expectedResult"] is None:
        raise ValueError("case %d has no expected result" % index)
    has_bundle = bool(case["crlBundle"])
    required = has_bundle or case["expectedResult"] == "REVOCATION_CHECK_FAILED_WITHOUT_CRL"
    case["crlPolicy"] = "required" if required else "optional"
    return case


def convert(raw):
    cases = []
    for number, value in read_fields(raw):
        if number != 1:
            raise ValueError("DeviceCertTestSuite: unknown field %d" % number)
        cases.append(convert_case(len(cases), value))
    return {
        "source": {
            "repository": "https://github.com/chromium-cheri/openscreen (mirror of Google's Open Screen)",
            "path": "test/data/cast/common/certificate/testsuite/testsuite1.pb",
            "sha256": hashlib.sha256(raw).hexdigest(),
            "format": "cast/common/certificate/proto/test_suite.proto (DeviceCertTestSuite)",
            "converter": "convert_testsuite.py",
        },
        "cases": cases,
    }


def main():
    with open(SOURCE, "rb") as handle:
        raw = handle.read()
    text = json.dumps(convert(raw), indent=1, sort_keys=True) + "\n"
    if "--check" in sys.argv[1:]:
        with open(TARGET, "r", encoding="utf-8") as handle:
            if handle.read() != text:
                sys.exit("testsuite1.json is stale: run convert_testsuite.py")
        return
    with open(TARGET, "w", encoding="utf-8") as handle:
        handle.write(text)


if __name__ == "__main__":
    main()
