import KioskCore
import LinuxPlatform
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// The kiosk on an MQTT broker, as a source of the show: Home Assistant,
/// a fleet's scripts, other kiosks of its groups. The topics are
/// ``MQTTTopics``; docs/home-assistant.md is the reference.
///
/// - Commands are control-protocol lines, answered by the same
///   ``ControlCommands`` as the socket's; the reply is published on the
///   kiosk's reply topic. `watch` and `screenshot` have topics instead.
///   A retained command is ignored (it would run again at every connect),
///   as are payloads over 4 KiB and text that is not UTF-8, each with a
///   reply and a log line (at most one a minute per kind).
/// - The state (`status`) is published retained on every change, at most
///   ten times a second; the `watch` events as they happen.
/// - The frame on screen, as a JPEG at most 640 pixels wide (encoded on the
///   ``FrameEncoder``'s thread), is published retained once the strip has
///   come to rest on a new picture and it is decoded, at most once every
///   2 s: Home Assistant's image entity shows what the kiosk shows.
/// - Home Assistant's discovery configs are published at every connect and
///   whenever Home Assistant says it is `online` again; an empty config
///   (the kiosk removed in Home Assistant) stops them until kioskd restarts.
/// - A kiosk in groups obeys each group's commands, and slides on its
///   first group's shared beat (``GroupBeatFollower``).
/// - A reload that changes the `[mqtt]` settings connects again with them.
final class MQTTSource: ShowSource {
    /// The state's least gap: at most ten a second.
    static let stateGap = 0.1
    /// The picture's least gap, and how it is encoded.
    static let pictureGap = 2.0
    static let pictureFormat = FrameEncoder.Format.picture

    /// The settings in force (a reload's, else the start's).
    private let settings: () -> KioskSettings
    private let hostName: String
    private let reload: (any SettingsReloading)?
    private let power: (any DisplayPowerControl)?
    private let log: (LogLine) -> Void

    private var link: MQTTLink?
    private var controller: ShowController?
    private var commands: ControlCommands?
    private var statePublish: Deadline?
    private var statePacing = PublishPacing(minimumGap: MQTTSource.stateGap)
    private var picturePublish: Deadline?
    private var picturePacing = PublishPacing(minimumGap: MQTTSource.pictureGap)
    private var encoder: FrameEncoder?
    private var encoderRegistration: Registration?
    private var logThrottle = LogThrottle(period: 60)
    /// Home Assistant removed this kiosk (an empty config): no configs until kioskd restarts.
    private var removedFromHomeAssistant = false

    /// The topics and discovery in use while a broker is configured.
    private var topics: MQTTTopics?
    private var discovery: HomeAssistantDiscovery?
    private var groups: [String] = []
    /// The first group's beat, while the kiosk is in a group.
    private var beat: GroupBeatFollower?
    private var loop: EventLoop?
    private var events: ShowSubscription?
    private var readings: ShowSubscription?

    deinit { encoder?.stop() }

    init(settings: @escaping () -> KioskSettings, hostName: String = MQTTSource.hostName(), reload: (any SettingsReloading)?,
         power: (any DisplayPowerControl)?, log: @escaping (LogLine) -> Void) {
        self.settings = settings
        self.hostName = hostName
        self.reload = reload
        self.power = power
        self.log = log
    }

    /// The machine's name (`gethostname`).
    static func hostName() -> String {
        var name = [CChar](repeating: 0, count: 256)
        guard gethostname(&name, name.count - 1) == 0 else { return "kiosk" }
        return String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    func attach(to loop: EventLoop, controller: ShowController) throws(SystemCallError) {
        self.controller = controller
        self.loop = loop
        commands = ControlCommands(controller: controller, started: controller.clock(), reload: reload, power: power) { [unowned loop] in
            loop.wakeUps
        }
        let link = try MQTTLink(loop: loop, clock: controller.clock, log: log)
        link.online = { [unowned self] in online() }
        link.message = { [unowned self] in received($0, $1, retained: $2) }
        self.link = link
        statePublish = loop.deadline(named: "mqtt state") { [unowned self] now in publishStateIfDue(at: now) }
        picturePublish = loop.deadline(named: "mqtt picture") { [unowned self] now in publishPictureIfDue(at: now) }
        // `.stopped` comes after the loop has ended: the job holds its sources until then.
        events = controller.subscribe { [unowned self] event in showEvent(event) }
        readings = controller.listen { [unowned self] reading in
            switch reading {
            case .someoneThere, .lightMeasured: stateChanged()
            case .presence, .presenceSensed: break  // nothing in the state changes until someoneThere says so
            }
        }
        useSettings()
    }

    // MARK: Settings

    /// Connects as the settings say, again only if they changed.
    private func useSettings() {
        let mqtt = settings().mqtt
        if let problem = mqtt.problem {
            log(.warning("mqtt: \(problem); not connecting"))
            return link?.use(nil) ?? ()
        }
        guard let broker = mqtt.broker else {
            topics = nil
            discovery = nil
            follow(nil, name: "")
            return link?.use(nil) ?? ()
        }
        let name = mqtt.effectiveName(hostName: hostName)
        let topics = MQTTTopics(name: name)
        if topics != self.topics || mqtt.discoveryPrefix != discovery?.prefix { removedFromHomeAssistant = false }
        self.topics = topics
        discovery = mqtt.discoveryPrefix.isEmpty ? nil : HomeAssistantDiscovery(
            topics: topics, prefix: mqtt.discoveryPrefix, version: KioskVersion.current, lightSensor: settings().power.lightSensor != nil)
        groups = mqtt.groups
        follow(groups.first, name: name)
        link?.use(MQTTLink.Target(broker: broker, clientID: "kioskd-\(name)", availabilityTopic: topics.availability, settings: mqtt))
    }

    /// Follows `group`'s beat (nil: none), leaving the one followed if it differs.
    private func follow(_ group: String?, name: String) {
        guard group != beat?.group else { return }
        beat?.stop()
        beat = nil
        guard let group, let loop, let controller else { return }
        do {
            beat = try GroupBeatFollower(
                group: group, name: name, loop: loop, controller: controller, resumeAfter: { [unowned self] in settings().motion.resumeAfter },
                publish: { [unowned self] topic, payload, retained in link?.publish(topic, payload, retained: retained) }, log: log)
        } catch {
            log(.warning("mqtt: cannot follow group \(group)'s beat: \(error)"))
        }
        if link?.isOnline == true, let beat {
            link?.subscribe(beat.topic)
            beat.subscribed()
        }
    }

    // MARK: The broker

    /// Just connected: subscribe, and publish everything a newcomer should find.
    private func online() {
        guard let link, let topics else { return }
        link.publish(topics.availability, Array("online".utf8), retained: true)
        link.subscribe(topics.command)
        for group in groups { link.subscribe(MQTTTopics.groupCommand(group)) }
        if let beat {
            link.subscribe(beat.topic)
            beat.subscribed()
        }
        if let discovery {
            link.subscribe(discovery.statusTopic)
            link.subscribe(discovery.configPattern)
            publishDiscovery()
        }
        statePacing.reset()
        statePacing.changed()
        publishStateIfDue(at: controller?.clock() ?? 0)
        picturePacing.reset()
        picturePacing.changed()
        publishPictureIfDue(at: controller?.clock() ?? 0)
    }

    private func publishDiscovery() {
        guard let link, let discovery, !removedFromHomeAssistant else { return }
        for config in discovery.configs { link.publish(config.topic, Self.payload(config.payload.line), retained: true) }
        for topic in discovery.retiredConfigTopics { link.publish(topic, [], retained: true) }
    }

    private func received(_ topic: String, _ payload: [UInt8], retained: Bool) {
        guard let topics else { return }
        if topic == topics.command || groups.contains(where: { MQTTTopics.groupCommand($0) == topic }) {
            return command(payload, on: topic, retained: retained)
        }
        if let beat, topic == beat.topic { return beat.received(payload) }
        guard let discovery else { return }
        if topic == discovery.statusTopic {
            if payload == Array("online".utf8) {
                publishDiscovery()
                stateChanged()
            }
        } else if payload.isEmpty, topic.hasPrefix(discovery.prefix + "/"), topic.hasSuffix("/config"), !removedFromHomeAssistant,
                  !discovery.retiredConfigTopics.contains(topic) {
            // Home Assistant deleting the device clears each config: the kiosk stops offering them.
            removedFromHomeAssistant = true
            log("mqtt: Home Assistant removed \(topics.name) (an empty \(topic)); its entities are offered again when kioskd restarts")
        }
    }

    // MARK: Commands

    private func command(_ payload: [UInt8], on topic: String, retained: Bool) {
        guard let commands, let link, let topics else { return }
        let now = controller?.clock() ?? 0
        let reply: [UInt8]
        if retained {
            // Retained, it would be obeyed again at every connect: never obeyed.
            if logThrottle.allows("retained", at: now) {
                log(.warning("mqtt: ignored a retained command on \(topic): publish commands without the retain flag"))
            }
            return
        }
        switch MQTTCommand.request(payload) {
        case .failure(let refusal):
            if logThrottle.allows(refusal.kind, at: now) { log(.warning("mqtt: refused a command on \(topic): \(refusal.message)")) }
            reply = ControlReply.failure(refusal.message).line
        case .success(let request) where request.command.overMQTT(topics) != nil:
            reply = ControlReply.failure("\(request.name) is the control socket's: over MQTT \(request.command.overMQTT(topics)!)").line
        case .success(let request) where request.command.movesTheGroup:
            let answer = commands.reply(to: request)
            reply = answer.line
            stateChanged()
            // A group command moves the whole group: a new beat, from here and now.
            if let beat, topic == MQTTTopics.groupCommand(beat.group), answer["ok"] == .bool(true) { beat.groupCommandPerformed() }
        case .success(let request):
            reply = commands.answer(request)
            stateChanged()
        }
        link.publish(topics.reply, Self.payload(reply))
    }

    // MARK: State and events

    private func showEvent(_ event: ShowEvent) {
        switch event {
        case .stopped:
            beat?.stop()
            link?.stop()
            return
        case .settingsApplied:
            useSettings()
        case .pictureCentred, .ready, .screenChanged, .panelChanged:
            picturePacing.changed()
            armPicturePublish()
        default:
            break
        }
        if let line = event.watchLine, let topics { link?.publish(topics.event, Self.payload(line.line)) }
        stateChanged()
    }

    /// The state changed: published from a deadline (never from inside
    /// the show's own update, where an event comes from), as its pacing allows.
    private func stateChanged() {
        statePacing.changed()
        armStatePublish()
    }

    private func armStatePublish() { statePublish?.arm(at: link?.isOnline == true ? statePacing.nextDue : nil) }

    private func publishStateIfDue(at now: Double) {
        guard statePacing.isDue(at: now), let link, link.isOnline, let topics, let commands else { return armStatePublish() }
        link.publish(topics.state, Self.payload(commands.answer(.status)), retained: true)
        statePacing.published(at: now)
        armStatePublish()
    }

    /// The picture's encoder and its thread, started at the first picture:
    /// a kiosk without a broker never has one.
    private func pictureEncoder() -> FrameEncoder? {
        if let encoder { return encoder }
        guard let loop else { return nil }
        do {
            let encoder = try FrameEncoder()
            encoderRegistration = try loop.register(encoder.readyFD, name: "mqtt picture") { [unowned self] _ in pictureEncoded() }
            self.encoder = encoder
            return encoder
        } catch {
            if logThrottle.allows("encoder", at: controller?.clock() ?? 0) {
                log(.warning("mqtt: cannot start the picture's encoder: \(error)"))
            }
            return nil
        }
    }

    private func armPicturePublish() { picturePublish?.arm(at: link?.isOnline == true ? picturePacing.nextDue : nil) }

    /// The frame on screen to the encoder, once the strip is at rest with
    /// every picture on screen decoded, the neighbours too (until then, a
    /// look every 0.2 s: on a busy kiosk a neighbour can decode a second
    /// after the centre, and Home Assistant would keep a frame with a hole
    /// in it until the next slide); none while the display is off.
    private func publishPictureIfDue(at now: Double) {
        guard picturePacing.isDue(at: now), link?.isOnline == true, let controller else { return armPicturePublish() }
        let show = controller.snapshot
        if show.asleep || show.panel != .active {
            picturePacing.published(at: now)  // nothing to show; the next change asks again
            return armPicturePublish()
        }
        guard !show.strip.moving, show.strip.allOnScreen, show.centred.item == nil || show.centred.info != nil,
              let shown = controller.frameOnScreen() else {
            picturePublish?.arm(at: now + 0.2)
            return
        }
        pictureEncoder()?.encode(shown.recipe, as: Self.pictureFormat, for: 0)
        picturePacing.published(at: now)
        armPicturePublish()
    }

    private func pictureEncoded() {
        guard let encoder else { return }
        for finished in encoder.takeFinished() {
            switch finished.file {
            case .success(let jpeg): if let topics { link?.publish(topics.picture, jpeg, retained: true) }
            case .failure(let error): log(.warning("mqtt: the picture for Home Assistant could not be encoded: \(error)"))
            }
        }
    }

    /// A JSON line as a payload: without its newline.
    static func payload(_ line: [UInt8]) -> [UInt8] { line.last == UInt8(ascii: "\n") ? Array(line.dropLast()) : line }
}
