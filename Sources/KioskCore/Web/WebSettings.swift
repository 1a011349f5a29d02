/// The `[web]` table: kioskd-web, the page on the local network where a
/// phone adds photos, sees the screen and drives the kiosk. Off (no
/// `listen`) unless configured. kioskd itself reads the table only to
/// pass it by; kioskd-web reads it at its start (``ReloadPolicy/webRestart``).
public struct WebSettings: Hashable, Sendable {
    /// Where the page is served; nil: no page.
    public var listen: WebListenAddress? = nil
    /// A file whose first line is an Argon2id hash string (`kioskd-web hash-password`).
    public var passwordFile: String? = nil
    /// The server's certificate and key (PEM): with both, the page is https only.
    public var tlsCert: String? = nil
    public var tlsKey: String? = nil
    /// The largest file one upload may hold, in bytes.
    public var uploadMax: Int64 = 500_000_000
    /// The most files one upload may hold.
    public var uploadCount = 100

    public init() {}

    /// Whether the page is served over TLS.
    public var usesTLS: Bool { tlsCert != nil && tlsKey != nil }

    /// What the table's settings together say is wrong, for kioskd-web's
    /// start (each reads fine on its own).
    public var problem: String? {
        if (tlsCert == nil) != (tlsKey == nil) { return "web.tls_cert and web.tls_key go together: give both, or neither" }
        if listen != nil, passwordFile == nil {
            return "web.listen needs web.password_file: make one with `kioskd-web hash-password > /etc/kioskd/web-password`"
        }
        return nil
    }
}

/// Where kioskd-web listens: an IPv4 or IPv6 address and a port,
/// `"0.0.0.0:8080"`, `"127.0.0.1:8080"`, `"[::]:8080"`.
public struct WebListenAddress: Hashable, Sendable, CustomStringConvertible {
    /// The address as written, without brackets: `0.0.0.0`, `::`.
    public let host: String
    public let port: UInt16

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
    public var isIPv6: Bool { host.contains(":") }

    /// Whether only this machine can reach it (127.0.0.0/8 or ::1): no TLS is needed there.
    public var isLoopback: Bool { host == "::1" || host.hasPrefix("127.") }

    public init?(parsing text: String) {
        let host: Substring, portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
            guard host.contains(":"), host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { return nil }
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
            let parts = host.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 4, parts.allSatisfy({ !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isASCIIDigit) && UInt8($0) != nil }) else { return nil }
        }
        // Port 0 (any free port) is for the tests' --listen; the setting refuses it.
        guard portText.allSatisfy(\.isASCIIDigit), let port = UInt16(portText) else { return nil }
        self.host = String(host)
        self.port = port
    }
}

extension SettingFormat where Value == WebListenAddress? {
    /// `web.listen`: an address and port, or `"none"` (no page).
    static var webListen: Self {
        SettingFormat(read: { value in
            guard case .string(let text) = value else { throw SettingProblem("expected \"none\" or an address and port like \"0.0.0.0:8080\"") }
            if text == "none" { return nil }
            guard let address = WebListenAddress(parsing: text), address.port > 0 else {
                throw SettingProblem("expected \"none\" or an address and port like \"0.0.0.0:8080\", \"127.0.0.1:8080\" or \"[::]:8080\"")
            }
            return address
        }, write: { .string($0?.description ?? "none") })
    }
}

extension SettingFormat where Value == Int {
    /// `web.upload_count`: files in one upload, 1 to 10,000.
    static var uploadCount: Self { .count(1...10_000, "expected how many files one upload may hold, from 1 to 10000, e.g. 100") }
}
