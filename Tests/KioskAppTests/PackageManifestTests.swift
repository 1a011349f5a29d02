import Foundation
import SystemCalls
import Testing

/// Package.swift says what each target uses: a module imported but not
/// declared builds only by luck (another target built it first), and
/// breaks a clean build of that target alone.
@Suite struct PackageManifestTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Each target's name, kind, folder and declared dependencies, read from the manifest's text.
    func targets() throws -> [(name: String, kind: String, dependencies: Set<String>)] {
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let declaration = try Regex(#"\.(target|executableTarget|testTarget|systemLibrary)\(\s*name:\s*"([^"]+)""#)
        let starts = manifest.matches(of: declaration)
        return starts.enumerated().map { index, match in
            let end = index + 1 < starts.count ? starts[index + 1].range.lowerBound : manifest.endIndex
            let body = String(manifest[match.range.upperBound..<end])
            let kind = String(match.output[1].substring ?? ""), name = String(match.output[2].substring ?? "")
            var dependencies: Set<String> = []
            if let list = body.range(of: "dependencies:") {
                for quoted in body[list.upperBound...].matches(of: #/"([A-Za-z]+)"/#) { dependencies.insert(String(quoted.output.1)) }
                // The property tests' package, declared where the toolchain can resolve it.
                if body.contains("propertyBased.product") { dependencies.insert("PropertyBased") }
            }
            return (name, kind, dependencies)
        }
    }

    @Test func everyModuleATargetImportsIsDeclared() throws {
        let targets = try targets()
        let modules = Set(targets.map(\.name)).union(["ArgumentParser", "PropertyBased"])
        var undeclared: [String] = []
        var checked = 0
        for target in targets where target.kind != "systemLibrary" {
            let folder = target.name == "TestSupport" ? "Tests/TestSupport" : (target.kind == "testTarget" ? "Tests/" : "Sources/") + target.name
            let directory = Self.root.appendingPathComponent(folder)
            guard let files = FileManager.default.enumerator(atPath: directory.path) else { continue }
            checked += 1
            var imported: Set<String> = []
            for case let file as String in files where file.hasSuffix(".swift") {
                let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
                for line in text.split(separator: "\n") {
                    if let match = line.wholeMatch(of: #/\s*(?:@testable )?import (\w+)/#) { imported.insert(String(match.output.1)) }
                }
            }
            let missing = imported.intersection(modules).subtracting(target.dependencies).subtracting([target.name])
            if !missing.isEmpty { undeclared.append("\(target.name) imports \(missing.sorted().joined(separator: ", "))") }
        }
        #expect(checked >= 20)
        #expect(undeclared.isEmpty, "declare these in Package.swift:\n\(undeclared.joined(separator: "\n"))")
    }

    /// kioskctl is a small client and kioskd a daemon that runs for months:
    /// FoundationEssentials (kioskctl's JSONDecoder, which swift-argument-parser
    /// links anyway) is allowed, Foundation and its ICU are not (kioskctl 57 MB
    /// static where 15 MB will do; kioskd 6 MB more resident). The debug build
    /// links the Swift libraries dynamically, so what a program needs is in its
    /// NEEDED list: one `import Foundation` in any module it links puts
    /// libFoundation.so there.
    @Test(arguments: ["kioskctl", "kioskd"])
    func theProgramsLinkNoFoundation(program: String) throws {
        let needed = try neededLibraries(program)
        try #require(needed.contains("libswiftCore.so"), "not a dynamically linked Swift program: \(needed)")
        let foundation = needed.filter { $0.hasPrefix("libFoundation") && !$0.hasPrefix("libFoundationEssentials") }
        #expect(foundation.isEmpty, "\(program) links \(foundation): a module it uses imports Foundation (use Glibc, or FoundationEssentials)")
        #expect(!needed.contains { $0.hasPrefix("libicu") || $0.hasPrefix("lib_FoundationICU") }, "\(program) links ICU: \(needed)")
    }

    /// The libraries loaded on first use (``OnDemandLibrary``) are linked by
    /// no program: a library linked is mapped at start, and a pkg-config
    /// package named in Package.swift for one of them would link it again.
    @Test(arguments: ["kioskctl", "kioskd"])
    func theProgramsLinkNoLibraryLoadedOnDemand(program: String) throws {
        let needed = try neededLibraries(program)
        try #require(needed.contains("libc.so.6"), "\(needed)")
        let linked = Set(needed).intersection(OnDemandLibrary.allCases.map(\.soname))
        #expect(linked.isEmpty, "\(program) links \(linked.sorted())")
    }

    /// The shared libraries the built `program` names (its NEEDED entries).
    private func neededLibraries(_ program: String) throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["readelf", "--dynamic", try builtExecutable(program)]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "readelf failed: \(output)")
        return output.split(separator: "\n").compactMap { line in
            line.contains("(NEEDED)") ? line.split(separator: "[").last.map { String($0.dropLast()) } : nil
        }
    }
}
