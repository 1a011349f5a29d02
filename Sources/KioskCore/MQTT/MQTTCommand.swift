/// A command as it arrives on an MQTT topic: one control-protocol line,
/// UTF-8, at most ``maximumBytes`` (a trailing newline allowed, as
/// `mosquitto_pub -l` and scripts send it).
public enum MQTTCommand {
    /// The longest payload taken as a command.
    public static let maximumBytes = 4096

    /// Why a payload is not a command: the reply's words, and its kind (for the log's rate).
    public struct Refusal: Error, Equatable, Sendable {
        public let kind: String
        public let message: String
    }

    /// The request `payload` holds, or why it holds none.
    public static func request(_ payload: [UInt8]) -> Result<ControlRequest, Refusal> {
        guard payload.count <= maximumBytes else {
            return .failure(Refusal(kind: "size", message: "a command is at most \(maximumBytes) bytes; this one has \(payload.count)"))
        }
        guard var text = String(validating: payload, as: UTF8.self) else {
            return .failure(Refusal(kind: "utf8", message: "a command is UTF-8 text; this one is not"))
        }
        if text.hasSuffix("\n") { text.removeLast() }
        guard !text.contains(where: { $0 == "\n" || $0 == "\r\n" }) else {
            return .failure(Refusal(kind: "lines", message: "one command per message; this one has several lines"))
        }
        do { return .success(try ControlRequest(parsing: text)) } catch {
            return .failure(Refusal(kind: "command", message: error.message))
        }
    }
}
