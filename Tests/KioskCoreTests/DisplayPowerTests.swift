import KioskCore
import Testing

@Suite struct DisplayPowerTests {
    let workHours = try! DisplaySchedule(parsing: "daily 09:00-17:00")
    let noon: Int64 = 12 * 3600, night: Int64 = 22 * 3600

    @Test func theRequestWinsOverTheSchedule() {
        var power = DisplayPower(schedule: workHours)
        #expect(power.requested == "schedule")
        #expect(power.wantsOn(at: noon, utcOffset: { _ in 0 }) && !power.wantsOn(at: night, utcOffset: { _ in 0 }))
        let closing: Int64? = power.nextChange(after: noon, utcOffset: { _ in 0 })
        #expect(closing == Int64(17 * 3600))
        power.request = .off
        #expect(power.requested == "off" && !power.wantsOn(at: noon, utcOffset: { _ in 0 }))
        #expect(power.nextChange(after: noon, utcOffset: { _ in 0 }) == nil)
        power.request = .on
        #expect(power.requested == "on" && power.wantsOn(at: night, utcOffset: { _ in 0 }))
        #expect(power.nextChange(after: night, utcOffset: { _ in 0 }) == nil)
    }

    @Test func withoutAScheduleAutoIsOn() {
        let power = DisplayPower(schedule: nil)
        #expect(power.requested == "on" && power.wantsOn(at: night, utcOffset: { _ in 0 }))
        #expect(power.nextChange(after: night, utcOffset: { _ in 0 }) == nil)
    }
}

@Suite struct SavePacingTests {
    @Test func atMostOneWriteAMinuteAndOnlyOfSomethingNew() {
        var pacing = SavePacing(written: "a.jpg")
        pacing.centred("a.jpg")
        #expect(pacing.nextWrite == nil) // already on disk: nothing to write
        pacing.centred("b.jpg")
        #expect(pacing.due(at: 0) == "b.jpg") // the first change is written at once
        pacing.wrote("b.jpg", at: 0)
        pacing.centred("c.jpg")
        pacing.centred("d.jpg")
        #expect(pacing.due(at: 59.9) == nil && pacing.nextWrite == 60)
        #expect(pacing.due(at: 60) == "d.jpg") // the latest, once
        pacing.wrote("d.jpg", at: 60)
        #expect(pacing.nextWrite == nil)
        pacing.centred("e.jpg")
        pacing.centred("d.jpg") // back on what is on disk before the minute is up
        #expect(pacing.nextWrite == nil)
    }
}
