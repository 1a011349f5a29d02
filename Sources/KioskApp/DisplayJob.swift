import DRMOutput
import KioskCore
import KioskRendering

#if canImport(Glibc)
import Glibc
#endif

/// Why the show on the display stopped or could not start.
public enum DisplayJobError: Error, CustomStringConvertible {
    case setup(ShowSetupError)
    case display(DRMError)
    case system(call: String, errno: Int32)

    public var description: String {
        switch self {
        case .setup(let error): return error.description
        case .display(let error): return error.description
        case .system(let call, let code): return "\(call) failed: \(String(cString: strerror(code))) (errno \(code))"
        }
    }
}

/// The show on a real display, until SIGTERM or SIGINT.
///
/// The display is taken at once with a background-only frame (so the operator
/// sees kioskd has the screen), then the pictures are decoded and flipped in.
/// On a signal the pending flip completes, the saved CRTC is restored (the
/// console comes back) and `run` returns.
public struct DisplayJob {
    public var settings: KioskSettings
    public var position: Double
    /// Where operator log lines go (standard error in the daemon).
    public var log: (String) -> Void

    public init(settings: KioskSettings, position: Double, log: @escaping (String) -> Void) {
        self.settings = settings
        self.position = position
        self.log = log
    }

    public func run() throws(DisplayJobError) {
        let signals = try ShutdownSignals()
        let output: KMSOutput
        do { output = try openOutput(settings.display) } catch { throw .display(error) }
        defer { output.restore() }
        let layout: ShowLayout
        var pictures: ShowPictures
        do {
            layout = try ShowLayout(settings: settings, screen: output.size)
            pictures = try ShowPictures(settings: settings)
        } catch {
            throw .setup(error)
        }
        log("showing on \(output.card.path) (\(output.card.driverName)) \(output.connectorName) \(output.mode), "
            + "rotation \(settings.display.rotation.rawValue)")
        layout.notes.forEach(log)

        var scratch = RasterImage(size: PixelSize(width: 1, height: 1), filledWith: .black)
        let empty = CircularIndex(count: 0)
        do {
            try output.present { surface in
                layout.renderer.draw(into: surface, position: position, playlist: empty, scratch: &scratch) { _ in nil }
            }
            pictures.loadVisible(layout.geometry, at: position)
            pictures.log.forEach(log)
            if pictures.playlist.isEmpty { log(ShowPictures.emptyNote(settings)) }
            waitForPresent(output)
            try output.present { surface in
                layout.renderer.draw(into: surface, position: position, playlist: pictures.index, scratch: &scratch) {
                    pictures.picture($0)
                }
            }
        } catch {
            throw .display(error)
        }
        log("showing \(pictures.playlist.count) picture(s), picture \(pictures.index.item(forSlot: Int(position.rounded(.down))).map(String.init) ?? "none") in the centre")
        // Until the loop gains timers, input and the control socket, it only
        // has flip completions and shutdown signals to wait for.
        while true {
            var fds = [pollfd(fd: output.card.fd, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: signals.fd, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, nfds_t(fds.count), -1)
            if ready < 0 {
                if errno == EINTR { continue }
                throw .system(call: "poll", errno: errno)
            }
            if fds[0].revents & Int16(POLLIN) != 0 { output.handleEvents() }
            if fds[1].revents & Int16(POLLIN) != 0, let signal = signals.take() {
                log("stopping on \(signal == SIGTERM ? "SIGTERM" : "SIGINT"); restoring the console")
                return
            }
        }
    }

    /// Waits for the pending flip and the refresh period, so presents are
    /// never faster than the display (bochs completes flips at once).
    private func waitForPresent(_ output: KMSOutput) {
        output.waitForPendingFlip()
        if let next = output.nextPresentAllowed, next > .now {
            let wait = next - .now
            var request = timespec(tv_sec: 0, tv_nsec: Int(wait.components.attoseconds / 1_000_000_000))
            nanosleep(&request, nil)
        }
    }
}
