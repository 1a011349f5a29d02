import ArgumentParser

@main
struct Kioskctl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kioskctl",
        abstract: "Control a running kioskd.",
        discussion: "The control socket arrives with a later milestone; today kioskctl only prints its version.",
        version: "0.1.0")
}
