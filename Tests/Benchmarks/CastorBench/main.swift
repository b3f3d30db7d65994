import Foundation

// castor-bench: the Swift side of `make bench` (see scripts/bench.sh and Modules/Castor/Castor.docc/Performance.md).
let usage = """
    usage: castor-bench serve --count N [--latency-ms L]
           castor-bench connect --port P --runs N [--auth off|report] [--kind floor --request-bytes a --reply-bytes b | --kind phases]
           castor-bench seek --port P --count N [--auth off|report] [--caller pool|loop]
           castor-bench floor-rtt --port E --count N --request-bytes a --reply-bytes b [--caller pool|loop]
           castor-bench hold --ports a-b [--auth off|report] [--hold-seconds s]
           castor-bench throughput --ports a,b,... [--seconds s] [--auth off|report] [--caller pool|loop]
           castor-bench decode --fixture file.json [--millis ms] [--repeats r] [--stage name]
           castor-bench seek-work --count N --side sender|receiver
           castor-bench admission --port P --idlers N --runs R [--auth off|report]
    """
let command = CommandLine.arguments.dropFirst().first ?? ""
let arguments = Arguments(CommandLine.arguments.dropFirst(2))
do {
    switch command {
    case "serve": try await Serve.run(arguments)
    case "connect": try await Network.connect(arguments)
    case "seek": try await Network.seek(arguments)
    case "floor-rtt": try await Network.floorRoundTrips(arguments)
    case "hold": try await Network.hold(arguments)
    case "throughput": try await Throughput.run(arguments)
    case "decode": try Decode.run(arguments)
    case "seek-work": try SeekWork.run(arguments)
    case "admission": try await Admission.run(arguments)
    default:
        note(usage)
        exit(2)
    }
    exit(0)
} catch {
    note("castor-bench \(command): \(error)")
    exit(1)
}
