/// The topics a kiosk named `name` uses on its broker (issue 35's
/// interface: others script against these names, so they do not change).
public struct MQTTTopics: Equatable, Sendable {
    public let name: String

    /// `name` as given: already one topic level (see ``topicSafe(_:)``).
    public init(name: String) { self.name = name }

    /// `online`, retained; the last will says `offline`.
    public var availability: String { "kioskd/\(name)/availability" }
    /// The `kioskctl status --json` object, retained.
    public var state: String { "kioskd/\(name)/state" }
    /// One control-protocol line, as the socket takes it.
    public var command: String { "kioskd/\(name)/command" }
    /// The socket's JSON reply to a command.
    public var reply: String { "kioskd/\(name)/reply" }
    /// The `watch` events.
    public var event: String { "kioskd/\(name)/event" }
    /// The current frame as a JPEG.
    public var picture: String { "kioskd/\(name)/picture" }

    /// Commands for every kiosk in `group`.
    public static func groupCommand(_ group: String) -> String { "kioskd/group/\(group)/command" }
    /// The group's slide beat, retained.
    public static func groupBeat(_ group: String) -> String { "kioskd/group/\(group)/beat" }

    /// A name made fit for one topic level and for Home Assistant's object
    /// ids: lower case letters, digits, `_` and `-`; anything else (the
    /// wildcards `+` and `#`, `/`, spaces, dots of a domain) becomes `_`,
    /// runs of them one. An empty result is `kiosk`.
    public static func topicSafe(_ text: String) -> String {
        var safe = ""
        for scalar in text.lowercased().unicodeScalars {
            let kept = ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "-"
            if kept {
                safe.unicodeScalars.append(scalar)
            } else if !safe.isEmpty, safe.last != "_" {
                safe.append("_")
            }
        }
        while safe.last == "_" { safe.removeLast() }
        return safe.isEmpty ? "kiosk" : safe
    }
}
