import KioskCore

/// What arrives from a broker, which anyone who may publish there can
/// send: the first byte chooses the topic. Even: a command payload
/// (``MQTTCommand/request(_:)``); odd: a group's beat (``GroupBeat/read(_:)``),
/// which, when taken, must give a picture in the playlist at any time and
/// a next slide after the time asked.
func readMQTTPayload(_ bytes: UnsafeRawBufferPointer) {
    guard let selector = bytes.first else { return }
    let payload = Array(bytes.dropFirst())
    if selector % 2 == 0 {
        switch MQTTCommand.request(payload) {
        case .success(let request):
            check(payload.count <= MQTTCommand.maximumBytes, "a command over \(MQTTCommand.maximumBytes) bytes was taken: \(request)")
        case .failure(let refusal):
            check(!refusal.message.isEmpty && !refusal.message.contains("\n"), "a refusal is one line: \(refusal)")
        }
        return
    }
    guard case .success(let beat) = GroupBeat.read(payload) else { return }
    for time in [0, beat.epoch - 1, beat.epoch, beat.epoch + 0.5 * beat.interval, 1.8e9, 9.9e10] {
        for count in [1, 7, 1000] {
            guard let item = beat.item(at: time, count: count) else { return check(false, "no picture in a playlist of \(count)") }
            check((0..<count).contains(item), "picture \(item) of \(count) at \(time) for \(beat)")
        }
        if let next = beat.nextSlide(after: time) { check(next.at > time || time < beat.epoch, "the next slide \(next) is not after \(time)") }
    }
}
