import DRMOutput
import ImageCodecs
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
/// sees kioskd has the screen). Pictures are decoded by the ``DecodeWorker``
/// and drawn as they arrive: a slot whose picture is not ready shows the
/// background, and the loop never waits for a decode. On a signal the pending
/// flip completes, the saved CRTC is restored (the console comes back) and
/// `run` returns.
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
        let folder: ImageFolder
        do {
            layout = try ShowLayout(settings: settings, screen: output.size)
            folder = try ImageFolder(settings: settings)
        } catch {
            throw .setup(error)
        }
        log("showing on \(output.card.path) (\(output.card.driverName)) \(output.connectorName) \(output.mode), "
            + "rotation \(settings.display.rotation.rawValue)")
        (layout.notes + folder.ignored).forEach(log)
        if folder.pictures.isEmpty { log(ShowPictures.emptyNote(settings)) }

        let worker = try DecodeWorker(loader: PictureLoader(settings: settings), slot: layout.geometry.slotSize)
        defer { worker.stop() }
        var show = ShowOnScreen(pictures: ShowPictures(playlist: folder.pictures, layout: layout), layout: layout, position: position)
        worker.request(show.wanted())
        var scratch = RasterImage(size: PixelSize(width: 1, height: 1), filledWith: .black)
        var frameNeeded = true
        var announced = false

        // Until the loop gains timers, input and the control socket, it waits
        // for flip completions, finished pictures and shutdown signals.
        while true {
            // Draw when something changed, no flip is pending and the display
            // has had a refresh period since the last frame.
            if frameNeeded && !output.flipPending && (output.nextPresentAllowed.map { $0 <= .now } ?? true) {
                do {
                    try output.present { surface in
                        layout.renderer.draw(
                            into: surface, position: show.position, playlist: show.pictures.index, scratch: &scratch
                        ) { show.pictures.picture($0) }
                    }
                } catch {
                    throw .display(error)
                }
                frameNeeded = false
                if !announced && show.allOnScreen {
                    announced = true
                    let centre = show.pictures.index.item(forSlot: Int(show.position.rounded(.down)))
                    log("showing \(show.pictures.playlist.count) picture(s), picture \(centre.map(String.init) ?? "none") in the centre")
                }
            }
            var fds = [pollfd(fd: output.card.fd, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: signals.fd, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: worker.readyFD, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, nfds_t(fds.count), pollTimeout(frameNeeded: frameNeeded, output: output))
            if ready < 0 {
                if errno == EINTR { continue }
                throw .system(call: "poll", errno: errno)
            }
            if fds[0].revents & Int16(POLLIN) != 0 { output.handleEvents() }
            if fds[1].revents & Int16(POLLIN) != 0, let signal = signals.take() {
                log("stopping on \(signal == SIGTERM ? "SIGTERM" : "SIGINT"); restoring the console")
                return
            }
            if fds[2].revents & Int16(POLLIN) != 0 {
                let change = show.take(worker.takeFinished())
                change.log.forEach(log)
                if change.onScreen { frameNeeded = true }
                if change.playlist { worker.request(show.wanted()) }
            }
        }
    }

    /// How long poll may sleep: for ever, unless a frame waits for the
    /// display's next refresh period.
    private func pollTimeout(frameNeeded: Bool, output: KMSOutput) -> Int32 {
        guard frameNeeded, !output.flipPending, let next = output.nextPresentAllowed else { return -1 }
        let wait = next - .now
        return wait <= .zero ? 0 : Int32(min(1000, (wait / .milliseconds(1)).rounded(.up)))
    }
}
