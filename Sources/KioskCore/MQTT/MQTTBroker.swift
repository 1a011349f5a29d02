/// Where a kiosk's MQTT broker is, from the `broker` setting:
/// `mqtt://host` (port 1883) or `mqtts://host` (TLS, port 8883), a port
/// after a colon, an IPv6 address in brackets (`mqtt://[fd00::2]:1883`).
/// `"none"` or nothing means no broker.
public struct MQTTBroker: Hashable, Sendable, CustomStringConvertible {
    public let host: String
    public let port: Int
    public let usesTLS: Bool

    public init(host: String, port: Int, usesTLS: Bool) {
        self.host = host
        self.port = port
        self.usesTLS = usesTLS
    }

    public struct ParseError: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// The broker `text` names, or nil for `"none"` and `""`.
    public static func parse(_ text: String) throws(ParseError) -> MQTTBroker? {
        let trimmed = text.trimmingWhitespace()
        if trimmed.isEmpty || trimmed == "none" { return nil }
        let usesTLS: Bool
        let rest: Substring
        if trimmed.hasPrefix("mqtt://") {
            (usesTLS, rest) = (false, trimmed.dropFirst(7))
        } else if trimmed.hasPrefix("mqtts://") {
            (usesTLS, rest) = (true, trimmed.dropFirst(8))
        } else {
            throw ParseError(description: "\"\(text)\" is not a broker: write mqtt://host:1883, mqtts://host:8883 or \"none\"")
        }
        // A trailing slash is harmless; a path, a query or credentials are not how a broker is named.
        let address = rest.hasSuffix("/") ? rest.dropLast() : rest
        guard !address.contains(where: { "/?#@ ".contains($0) }) else {
            throw ParseError(description: "\"\(text)\": a broker is a host and a port only (user names and passwords are their own settings)")
        }
        var host = address, portText: Substring?
        if address.hasPrefix("[") {
            guard let close = address.firstIndex(of: "]") else { throw ParseError(description: "\"\(text)\": an IPv6 address needs its closing ]") }
            host = address[address.index(after: address.startIndex)..<close]
            let after = address[address.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw ParseError(description: "\"\(text)\": after the ] comes :port or nothing") }
                portText = after.dropFirst()
            }
        } else if let colon = address.firstIndex(of: ":") {
            host = address[..<colon]
            portText = address[address.index(after: colon)...]
        }
        guard !host.isEmpty else { throw ParseError(description: "\"\(text)\" names no host") }
        var port = usesTLS ? 8883 : 1883
        if let portText {
            guard let number = Int(portText), (1...65535).contains(number) else {
                throw ParseError(description: "\"\(text)\": the port must be a number from 1 to 65535")
            }
            port = number
        }
        return MQTTBroker(host: String(host), port: port, usesTLS: usesTLS)
    }

    public var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "\(usesTLS ? "mqtts" : "mqtt")://\(shownHost):\(port)"
    }
}
