import ListDomain
import Testing

@Suite("SplitMix64")
struct SplitMix64Tests {
    @Test func referenceOutputsForSeed1234567() {
        // The published outputs of Vigna's splitmix64.c seeded with 1234567.
        var generator = SplitMix64(seed: 1_234_567)
        let expected: [UInt64] = [
            6_457_827_717_110_365_317, 3_203_168_211_198_807_973, 9_817_491_932_198_370_423,
            4_593_380_528_125_082_431, 16_408_922_859_458_223_821,
        ]
        #expect((0..<5).map { _ in generator.next() } == expected)
    }

    @Test func referenceOutputsForSeedZero() {
        var generator = SplitMix64(seed: 0)
        #expect(generator.next() == 0xE220_A839_7B1D_CDAF)
        #expect(generator.next() == 0x6E78_9E6A_A1B9_65F4)
    }

    @Test func randomAccessMatchesTheStream() {
        var generator = SplitMix64(seed: 42)
        for index in 0..<100 as Range<UInt64> {
            #expect(generator.next() == SplitMix64.output(seed: 42, index: index))
        }
    }
}
