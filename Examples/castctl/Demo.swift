import ArgumentParser
struct Demo: AsyncParsableCommand { static let configuration = CommandConfiguration(abstract: "Run the demo."); func run() async throws {} }
