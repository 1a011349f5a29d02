import CLinux
import KioskCore
import LinuxPlatform
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// The control socket as a source of the show: `kioskctl`, `socat` and
/// scripts connect, send one command per line and read one JSON line per
/// reply (docs/control-protocol.md).
///
/// Everything happens on the run loop and nothing waits: the listening
/// socket and every client are non-blocking, replies are queued and sent
/// as the client takes them (writable interest only while some wait), and
/// screenshots are encoded on the ``FrameEncoder``'s thread. What a
/// client may do is the ``ControlSession``'s to decide; this type only
/// moves bytes and keeps the books (at most ``ControlSession/maximumClients``,
/// at most ``maximumScreenshots`` PNGs held at once).
final class ControlSocket: ShowSource {
    private let listener: ControlListener
    private let reload: (any SettingsReloading)?
    private let power: (any DisplayPowerControl)?
    private let encoder: FrameEncoder
    /// Whether `hold` is answered (`kioskd --test-commands`).
    private let testCommands: Bool
    /// Its clients, once it serves a show (``attach(to:controller:)``).
    private var clients: ControlClients?

    /// Serves the socket `listener` listens on (``ControlListener/open(_:)``,
    /// made early so a socket that cannot be made stops the start), with
    /// what `reload` and `display` need.
    init(listener: ControlListener, reload: (any SettingsReloading)?, power: (any DisplayPowerControl)?, testCommands: Bool = false) throws(SystemCallError) {
        self.listener = listener
        self.testCommands = testCommands
        self.reload = reload
        self.power = power
        encoder = try FrameEncoder()
    }

    deinit { encoder.stop() }

    func attach(to loop: EventLoop, controller: ShowController) throws(SystemCallError) {
        let commands = ControlCommands(
            controller: controller, started: controller.clock(), reload: reload, power: power, testCommands: testCommands
        ) { [unowned loop] in
            loop.wakeUps
        }
        clients = try ControlClients(listener: listener, encoder: encoder, loop: loop, controller: controller, commands: commands)
    }
}

/// The control socket's clients on one run loop: accepting them, reading
/// their requests into their ``ControlSession``s, answering with the
/// ``ControlCommands``, sending what they may take, and their screenshots.
final class ControlClients {
    /// Screenshots being made or sent at once, across clients (each holds a frame or a PNG).
    static let maximumScreenshots = 4

    private let listener: ControlListener
    private let encoder: FrameEncoder
    private let loop: EventLoop
    private let controller: ShowController
    private let commands: ControlCommands
    private var clients: [UInt64: Client] = [:]
    private var lastClientID: UInt64 = 0
    private var listening: Registration?
    private var encoderRegistration: Registration?
    /// Accepting waits a moment when the process is out of descriptors.
    private var acceptRetry: Deadline?
    /// Where each client's bytes are read into (one read of at most 4 KiB per wake-up and client).
    private var readBuffer = [UInt8](repeating: 0, count: 4096)

    private final class Client {
        let id: UInt64
        let socket: FileDescriptor
        var session: ControlSession
        var registration: Registration?
        var deadline: Deadline?
        /// The centred item when its screenshot was taken, or the thumbnail's item.
        var screenshotIndex: Int?
        /// The file a thumbnail was made of: its reply names this, even if the playlist moved on meanwhile.
        var thumbnailPath: String?

        init(id: UInt64, socket: consuming FileDescriptor, now: Double) {
            self.id = id
            self.socket = socket
            session = ControlSession(now: now)
        }
    }

    init(
        listener: ControlListener, encoder: FrameEncoder, loop: EventLoop, controller: ShowController, commands: ControlCommands
    ) throws(SystemCallError) {
        self.listener = listener
        self.encoder = encoder
        self.loop = loop
        self.controller = controller
        self.commands = commands
        listening = try loop.register(listener.descriptor.rawValue, name: "control socket") { [unowned self] _ in
            acceptClients()
        }
        encoderRegistration = try loop.register(encoder.readyFD, name: "screenshots") { [unowned self] _ in
            screenshotsFinished()
        }
        acceptRetry = loop.deadline(named: "control socket accept") { [unowned self] _ in
            if let listening { try? loop.setInterest(.readable, for: listening) }
        }
        events = controller.subscribe { [unowned self] event in
            guard let line = event.watchLine else { return }
            eventsToSend.append(line)
            if !answering { sendEvents() }
        }
    }

    /// Events wait here while a client's request is being answered (a
    /// `pause` emits one): its session is busy, and the reply goes first.
    private var eventsToSend: [JSONObject] = []
    private var events: ShowSubscription?
    private var answering = false

    private func sendEvents() {
        let now = controller.clock()
        let events = eventsToSend
        eventsToSend = []
        for client in clients.values where client.session.isWatching {
            for line in events { client.session.notify(line, at: now) }
            settle(client)
        }
    }

    /// Runs `body` on the client's session with the commands answering its
    /// requests; events the commands cause go out afterwards.
    private func answer<Result>(_ client: Client, _ body: (inout ControlSession, (ControlRequest) -> [UInt8]) -> Result) -> Result {
        answering = true
        let result = body(&client.session, commands.answer)
        answering = false
        if !eventsToSend.isEmpty { sendEvents() }
        return result
    }

    // MARK: Clients coming and going

    private func acceptClients() {
        while true {
            let accepted = valueOrErrno {
                accept4(listener.descriptor.rawValue, nil, nil, Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue))
            }
            let fd: Int32
            switch accepted {
            case .success(let descriptor): fd = descriptor
            case .failure(.connectionAborted): continue
            case .failure(.tooManyOpenFiles), .failure(.tooManyOpenFilesInSystem), .failure(.noBufferSpace), .failure(.noMemory):
                // Level-triggered, the waiting connection would wake the loop at once
                // again: stop listening for a moment instead of spinning.
                if let listening { try? loop.setInterest([], for: listening) }
                acceptRetry?.arm(at: controller.clock() + 0.1)
                return
            case .failure: return  // EAGAIN: all taken.
            }
            let socket = FileDescriptor(owning: fd)
            guard clients.count < ControlSession.maximumClients else {
                // One line, if it fits the socket's buffer (it does), then goodbye.
                let line = ControlReply.failure(ControlReply.tooManyClients).line
                _ = line.withUnsafeBytes { send(socket.rawValue, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
                continue
            }
            lastClientID += 1
            let client = Client(id: lastClientID, socket: socket, now: controller.clock())
            let id = client.id
            do {
                client.registration = try loop.register(fd, name: "control client \(id)") { [unowned self] events in
                    clientEvents(id, events)
                }
            } catch {
                continue  // epoll is out of memory: this client is closed, the rest go on.
            }
            client.deadline = loop.deadline(named: "control client \(id)") { [unowned self] now in
                guard let client = clients[id] else { return }
                if client.session.checkDeadline(at: now) { close(client) } else { settle(client) }
            }
            clients[id] = client
            settle(client)
        }
    }

    private func close(_ client: Client) {
        if let registration = client.registration { loop.unregister(registration) }
        if let deadline = client.deadline { loop.remove(deadline) }
        clients[client.id] = nil
        // The descriptor closes with the client.
    }

    // MARK: Talking

    private func clientEvents(_ id: UInt64, _ events: EventSet) {
        guard let client = clients[id] else { return }
        if events.contains(.error) { return close(client) }
        if client.session.wantsInput && events.contains(.readable) || events.contains(.hangUp) && client.session.wantsInput {
            let received = readBuffer.withUnsafeMutableBytes { buffer in
                valueOrErrno { recv(client.socket.rawValue, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT)) }
            }
            switch received {
            case .success(0):
                client.session.endOfInput()
            case .success(let count):
                let now = controller.clock()
                let bytes = readBuffer.prefix(count)
                if answer(client, { $0.receive(bytes, at: now, respond: $1) }) { takeScreenshot(for: client) }
            case .failure(.wouldBlock):
                break
            case .failure:
                return close(client)
            }
        } else if events.contains(.hangUp) {
            // Hung up (not just done sending: its reading side is gone too).
            return close(client)
        }
        settle(client)
    }

    /// Sends what it can, then closes the client or sets what to wait for.
    private func settle(_ client: Client) {
        let now = controller.clock()
        sending: while !client.session.unsent.isEmpty {
            let sent = client.session.unsent.withUnsafeBytes { bytes in
                valueOrErrno { send(client.socket.rawValue, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            }
            switch sent {
            case .success(let count) where count > 0: client.session.sent(count, at: now)
            case .failure(.wouldBlock): break sending
            default: return close(client)  // EPIPE, ECONNRESET: gone.
            }
        }
        if client.session.isFinished { return close(client) }
        var interest: EventSet = []
        if client.session.wantsInput { interest.insert(.readable) }
        if !client.session.unsent.isEmpty { interest.insert(.writable) }
        if let registration = client.registration {
            do { try loop.setInterest(interest, for: registration) } catch { return close(client) }
        }
        client.deadline?.arm(at: client.session.deadline)
    }

    // MARK: Screenshots

    /// Starts the screenshot `client` asked for, or answers why not (and
    /// then the next of its requests, which may be a screenshot again).
    private func takeScreenshot(for client: Client) {
        var wanted = true
        while wanted { wanted = startScreenshot(for: client) }
    }

    /// True when the attempt failed and the client wants another.
    private func startScreenshot(for client: Client) -> Bool {
        let now = controller.clock()
        let busy = clients.values.filter { $0 !== client && $0.session.holdsPicture }.count
        let failure: String?
        if busy >= Self.maximumScreenshots {
            failure = "screenshot: \(busy) screenshots are being made or sent already; try again in a moment"
        } else if case .thumbnail(let item) = client.session.pictureAsked {
            if let picture = controller.pictureToDecode(item) {
                client.screenshotIndex = item
                client.thumbnailPath = picture.path
                encoder.thumbnail(of: picture.path, loader: picture.loader, for: client.id)
                failure = nil
            } else {
                let playlist = controller.snapshot.playlist
                failure = playlist.isEmpty
                    ? "thumbnail: the playlist is empty" : "thumbnail: there is no picture \(item): the playlist has \(playlist.count), numbered 0 to \(playlist.count - 1)"
            }
        } else if let shown = controller.frameOnScreen() {
            client.screenshotIndex = shown.centredItem
            client.thumbnailPath = nil
            encoder.encode(shown.recipe, as: client.session.pictureAsked == .screenshot(.jpeg) ? .picture : .png, for: client.id)
            failure = nil
        } else {
            failure = "screenshot: no frame has reached the screen yet; try again in a moment"
        }
        guard let failure else { return false }
        return answer(client) { $0.failPicture(failure, at: now, respond: $1) }
    }

    /// `index` and `file` of the picture made; a thumbnail's `name` within
    /// its library too, of the file decoded (the playlist may have moved on).
    private func pictureNamed(_ client: Client) -> JSONObject {
        guard let path = client.thumbnailPath, let index = client.screenshotIndex else { return commands.picture(client.screenshotIndex) }
        return ["index": .int(index), "file": .string(Playlist.fileName(of: path)),
                "name": .string(PictureListing.place(of: path, in: controller.libraries).name)]
    }

    private func screenshotsFinished() {
        for finished in encoder.takeFinished() {
            guard let client = clients[finished.client] else { continue }
            let now = controller.clock()
            let again: Bool
            switch finished.file {
            case .success(let png):
                let reply = ControlReply.success([
                    (client.session.pictureAsked == .screenshot(.png) ? "png_bytes" : "jpeg_bytes"): .int(png.count),
                    "width": .int(finished.size.width), "height": .int(finished.size.height),
                ] as JSONObject + pictureNamed(client))
                again = answer(client) { $0.deliverPicture(reply, bytes: png, at: now, respond: $1) }
            case .failure(let error):
                // Worded before the session is handed over: it is not read while it is changed.
                let failure = "\(client.session.pictureAsked.name): \(error)"
                again = answer(client) { $0.failPicture(failure, at: now, respond: $1) }
            }
            if again { takeScreenshot(for: client) }
            settle(client)
        }
    }
}
