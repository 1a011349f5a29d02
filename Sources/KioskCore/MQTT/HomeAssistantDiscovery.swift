/// The retained configs by which Home Assistant's MQTT integration finds a
/// kiosk and lists its entities (MQTT discovery): each under
/// `<prefix>/<component>/<name>/<object>/config`, each with the same
/// `device` block and the kiosk's availability topic, so Home Assistant
/// greys the kiosk out when its last will says `offline`.
///
/// Every entity works through the topics a script would use: buttons and
/// switches publish control-protocol lines on the command topic, and their
/// states are read from the retained state (the `status` object). Nothing
/// here is Home Assistant's alone.
public struct HomeAssistantDiscovery: Sendable {
    public let topics: MQTTTopics
    public let prefix: String
    public let version: String
    /// The kiosk reads an ambient light sensor (`light_sensor`): a lux sensor entity too.
    public let lightSensor: Bool

    public init(topics: MQTTTopics, prefix: String, version: String, lightSensor: Bool = false) {
        self.topics = topics
        self.prefix = prefix
        self.version = version
        self.lightSensor = lightSensor
    }

    /// One entity: its component (`button`, `switch`...), its object id
    /// (`next`), and the config's own fields.
    public struct Entity: Sendable {
        public let component: String
        public let object: String
        public let fields: JSONObject
    }

    /// The orders `order` takes, as Home Assistant's select offers them.
    public static let orders = PictureOrder.allCases.map(\.rawValue)

    /// Each entity's payloads are lines of the control protocol, made from
    /// typed requests (``ControlRequest/line``) where Home Assistant sends
    /// them as they are; its templates (a level, a message) are written here.
    public var entities: [Entity] {
        let command: JSONValue = .string(topics.command), state: JSONValue = .string(topics.state)
        return [
            Entity(component: "button", object: "next", fields: [
                "name": "Next", "icon": "mdi:skip-next", "command_topic": command, "payload_press": .string(ControlRequest.next(1).line),
            ]),
            Entity(component: "button", object: "previous", fields: [
                "name": "Previous", "icon": "mdi:skip-previous", "command_topic": command, "payload_press": .string(ControlRequest.previous(1).line),
            ]),
            Entity(component: "switch", object: "pause", fields: [
                "name": "Pause", "icon": "mdi:pause", "command_topic": command, "payload_on": .string(ControlRequest.pause.line), "payload_off": .string(ControlRequest.resume.line),
                "state_topic": state, "value_template": "{{ 'ON' if value_json.paused else 'OFF' }}", "state_on": "ON", "state_off": "OFF",
            ]),
            // A light: on while the panel shows pictures, off while it is
            // off (by a command, display_schedule, brightness's off hours or
            // idle_off: its attributes say which); its brightness is
            // `brightness`: Home Assistant's 1 to 255 onto kioskd's 1 to 100, so
            // its lowest level (an automation's 1) is the lowest visible one, not
            // 0, a black picture; back, 1 to 100 onto 1 to 255 (0 stays 0).
            Entity(component: "light", object: "display", fields: [
                "name": "Display", "icon": "mdi:monitor", "schema": "template", "command_topic": command,
                "command_on_template":
                    "display on{% if brightness is defined %} {{ [1, (1 + (brightness - 1) * 99 / 254) | round(0) | int] | max }}{% endif %}",
                "command_off_template": .string(ControlRequest.display(.off).line),
                "state_topic": state, "state_template": "{{ 'off' if value_json.panel == 'off' else 'on' }}",
                "brightness_template":
                    "{{ 0 if value_json.brightness <= 0 else ((1 + (value_json.brightness - 1) * 254 / 99) | round(0) | int) }}",
                "json_attributes_topic": state,
                "json_attributes_template":
                    "{{ {'display_power': value_json.display_power, 'display_state': value_json.display_state, 'panel': value_json.panel, 'dimmer': value_json.dimmer} | tojson }}",
            ]),
            // Someone at the kiosk: a sensor says so, or a touch, key or remote in the last minute.
            Entity(component: "binary_sensor", object: "presence", fields: [
                "name": "Presence", "device_class": "occupancy", "state_topic": state,
                "value_template": "{{ 'ON' if value_json.presence else 'OFF' }}", "payload_on": "ON", "payload_off": "OFF",
            ]),
            Entity(component: "number", object: "interval", fields: [
                "name": "Interval", "icon": "mdi:timer-outline", "command_topic": command, "command_template": .string(ControlRequest.set(setting: "interval", value: "{{ value }}").line),
                "state_topic": state, "value_template": "{{ value_json.interval }}",
                "min": 1, "max": 3600, "step": 1, "mode": "box", "unit_of_measurement": "s", "entity_category": "config",
            ]),
            Entity(component: "select", object: "order", fields: [
                "name": "Order", "icon": "mdi:sort", "command_topic": command, "command_template": .string(ControlRequest.set(setting: "order", value: "{{ value }}").line),
                "state_topic": state, "value_template": "{{ value_json.order }}", "options": .array(Self.orders.map(JSONValue.string)),
                "entity_category": "config",
            ]),
            Entity(component: "sensor", object: "picture", fields: [
                "name": "Picture", "icon": "mdi:image", "state_topic": state, "value_template": "{{ value_json.file }}",
                "json_attributes_topic": state,
                "json_attributes_template":
                    "{{ {'index': value_json.index, 'count': value_json.count, 'taken': value_json.taken, 'size': value_json.picture_size} | tojson }}",
            ]),
            Entity(component: "sensor", object: "pictures", fields: [
                "name": "Pictures", "icon": "mdi:image-multiple", "state_topic": state, "value_template": "{{ value_json.count }}",
                "state_class": "measurement", "unit_of_measurement": "pictures", "entity_category": "diagnostic",
            ]),
            Entity(component: "image", object: "picture", fields: [
                "name": "Screen", "image_topic": .string(topics.picture), "content_type": "image/jpeg",
            ]),
            // Home Assistant's notify action shows a message for ten minutes
            // (one line of the protocol: a line break goes as \n, and the text is
            // kept within the protocol's 1,000 bytes); the button takes it away.
            Entity(component: "notify", object: "message", fields: [
                "name": "Message", "icon": "mdi:message-text", "command_topic": command,
                "command_template": "message --for 10m {{ (value | replace('\\n', '\\\\n'))[:900] }}",
            ]),
            Entity(component: "button", object: "clear_message", fields: [
                "name": "Clear message", "icon": "mdi:message-off", "command_topic": command, "payload_press": .string(ControlRequest.message(.clear).line),
            ]),
            Entity(component: "sensor", object: "message", fields: [
                "name": "Message shown", "icon": "mdi:message-text-outline", "state_topic": state,
                "value_template": "{{ value_json.message[:250] if value_json.message else 'none' }}",
            ]),
        ] + (lightSensor ? [
            Entity(component: "sensor", object: "lux", fields: [
                "name": "Light", "device_class": "illuminance", "unit_of_measurement": "lx", "state_class": "measurement",
                "state_topic": state, "value_template": "{{ value_json.lux }}",
            ]),
        ] : [])
    }

    /// Configs earlier versions published that this one does not: each is
    /// cleared (an empty retained payload) when the configs are published,
    /// so Home Assistant drops the old entity. The display was a switch
    /// before it was a light.
    public var retiredConfigTopics: [String] {
        ["\(prefix)/switch/\(topics.name)/display/config"] + (lightSensor ? [] : ["\(prefix)/sensor/\(topics.name)/lux/config"])
    }

    /// Where `entity`'s config goes.
    public func configTopic(_ entity: Entity) -> String { "\(prefix)/\(entity.component)/\(topics.name)/\(entity.object)/config" }

    /// Every entity's config topic and payload (availability, a unique id,
    /// the device and the origin added), in the order they are published.
    /// The device has no `configuration_url`: kioskd serves no page to link
    /// to (its settings are the config file), and Home Assistant shows a
    /// link only where one is given.
    public var configs: [(topic: String, payload: JSONObject)] {
        let name = topics.name
        let device: JSONObject = [
            "identifiers": .array([.string("kioskd_\(name)")]), "name": .string(name), "manufacturer": "kioskd", "model": "kioskd",
            "sw_version": .string(version),
        ]
        return entities.map { entity in
            let unique: JSONObject = [
                "unique_id": .string("kioskd_\(name)_\(entity.component)_\(entity.object)"),
                "availability_topic": .string(topics.availability),
                "device": .object(device),
                // What published the config: Home Assistant's log names it beside each entity's problems.
                "origin": .object(["name": "kioskd", "sw_version": .string(version)]),
            ]
            return (configTopic(entity), entity.fields + unique)
        }
    }

    /// The configs as docs/home-assistant.md lists them: each topic, then
    /// its payload exactly as published (one line of JSON).
    public var payloadReference: String {
        configs.map { "`\($0.topic)`\n\n```json\n" + String(decoding: $0.payload.line, as: UTF8.self) + "```\n" }.joined(separator: "\n")
    }

    /// The pattern matching this kiosk's configs: an empty one arriving is Home Assistant removing it.
    public var configPattern: String { "\(prefix)/+/\(topics.name)/+/config" }

    /// Home Assistant's birth message topic: `online` when it (re)starts, so configs are published again.
    public var statusTopic: String { "\(prefix)/status" }
}

/// When something changing is published: at once when it has been quiet,
/// else once ``minimumGap`` has passed since the last time, with the value
/// as it is then (a burst of changes is one message at its end).
public struct PublishPacing: Sendable, Equatable {
    public let minimumGap: Double
    private var lastPublished: Double?
    /// A change waits to be published.
    public private(set) var pending = false

    public init(minimumGap: Double) { self.minimumGap = minimumGap }

    public mutating func changed() { pending = true }

    /// When the next publish is due; nil while nothing changed.
    public var nextDue: Double? {
        guard pending else { return nil }
        return lastPublished.map { $0 + minimumGap } ?? -Double.infinity
    }

    public func isDue(at now: Double) -> Bool { nextDue.map { $0 <= now } ?? false }

    public mutating func published(at now: Double) {
        lastPublished = now
        pending = false
    }

    /// A new connection: the next change goes out at once.
    public mutating func reset() { lastPublished = nil }
}

/// `2024-05-01T12:34:56`: a wall-clock time (seconds since 1970-01-01 00:00
/// on that clock, as EXIF dates are read), in ISO 8601 without a zone.
public func wallClockISO8601(_ seconds: Int64) -> String {
    let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
    let second = seconds - days * 86_400
    // Howard Hinnant's days-to-civil.
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let mp = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * mp + 2) / 5 + 1
    let month = mp < 10 ? mp + 3 : mp - 9
    let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
    let yearText = year >= 0 && year < 10_000 ? String(repeating: "0", count: 4 - String(year).count) + String(year) : String(year)
    return "\(yearText)-\(two(month))-\(two(day))T\(two(second / 3600)):\(two(second / 60 % 60)):\(two(second % 60))"
}
