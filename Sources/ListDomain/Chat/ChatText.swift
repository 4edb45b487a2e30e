/// The texts of generated messages: sentences of varied length from fixed word lists, so a chat list's cells get
/// different heights. About 40 % are a few words, 35 % one or two sentences, 20 % three to seven, 5 % ten to
/// twenty (a long message); one in seven ends with emoji, one in twenty is in Arabic or Hebrew (right to left).
///
/// No text holds a `"`, a `\` or a control character, so JSON carries them as they are. The lists and the draws
/// are part of the data format.
package enum ChatText {
    /// The text of message `message` of conversation `conversation` under `seed`.
    static func text(seed: UInt64, conversation: UInt64, message: UInt64) -> String {
        var bytes = [UInt8](repeating: 0, count: maximumBytes)
        var span = bytes.mutableSpan
        var raw = span.mutableBytes
        let count = write(seed: seed, conversation: conversation, message: message, into: &raw, at: 0)
        bytes.removeLast(maximumBytes - count)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The version of the texts' format, part of every chat representation's tag: 2 since each word takes 16 bits
    /// of a draw, not a draw of its own (a page's texts cost a third as many draws); the texts changed with it.
    package static let format: UInt64 = 2

    /// Writes the UTF-8 of ``text(seed:conversation:message:)`` into `bytes` from `offset`, which must have
    /// ``maximumBytes`` of room; returns the offset past it. The page path writes it so, straight into the page's
    /// buffer: built from strings, a page of 20 messages took three times the CPU of a page of items, appended to
    /// an array byte by byte and copied into the page 1.6 times (Benchmarks/HISTORY.md).
    package static func write(
        seed: UInt64, conversation: UInt64, message: UInt64, into bytes: inout MutableRawSpan, at offset: Int
    ) -> Int {
        var random = SplitMix64(
            seed: SplitMix64.output(
                seed: SplitMix64.mix(seed ^ 0x7465_7874 ^ (conversation &* SplitMix64.gamma)), index: message))
        let pieces = Self.pieces
        var at = offset
        let shape = random.next()
        var draws = Draws(random)
        if shape % 20 == 0 {
            at = pieces.write(Piece.rightToLeft + Int((shape >> 8) % Piece.rightToLeftCount), into: &bytes, at: at)
        } else {
            let sentences: Int
            switch (shape >> 8) % 100 {
            case 0..<40:
                let count = 1 + draws.below(6)
                let capitalized = draws.below(2) == 0
                at = writeWords(pieces, &draws, count: count, capitalized: capitalized, into: &bytes, at: at)
                sentences = 0
            case 40..<75: sentences = 1 + draws.below(2)
            case 75..<95: sentences = 3 + draws.below(5)
            default: sentences = 10 + draws.below(11)
            }
            for index in 0..<sentences {
                if index > 0 { at = pieces.write(Piece.space, into: &bytes, at: at) }
                at = writeWords(pieces, &draws, count: 4 + draws.below(9), capitalized: true, into: &bytes, at: at)
                at = pieces.write(Piece.ending + draws.below(Piece.endingCount), into: &bytes, at: at)
            }
        }
        if (shape >> 16) % 7 == 0 {
            for _ in 0...draws.below(3) {
                at = pieces.write(Piece.emoji + draws.below(Piece.emojiCount), into: &bytes, at: at)
            }
        }
        return at
    }

    /// The choices a text is made of, 16 bits of a draw each: `below(n)` is `n` times the next 16 bits, over 2^16
    /// (a multiplication, where a modulo of a draw a word was most of the text's time).
    struct Draws {
        private var random: SplitMix64
        private var bits: UInt64 = 0
        private var left = 0

        init(_ random: SplitMix64) {
            self.random = random
        }

        @inline(__always)
        mutating func below(_ count: UInt64) -> Int {
            if left == 0 {
                bits = random.next()
                left = 4
            }
            let chunk = bits & 0xFFFF
            bits >>= 16
            left -= 1
            return Int((chunk &* count) >> 16)
        }
    }

    /// `count` words joined by spaces, the first capitalized if asked (the words are ASCII).
    @inline(__always)
    private static func writeWords(
        _ pieces: PackedText, _ draws: inout Draws, count: Int, capitalized: Bool, into bytes: inout MutableRawSpan,
        at offset: Int
    ) -> Int {
        var at = offset
        for index in 0..<count {
            let word = draws.below(Piece.wordCount)
            let piece = index > 0 ? Piece.spacedWord + word : capitalized ? Piece.capitalizedWord + word : word
            at = pieces.write(piece, into: &bytes, at: at)
        }
        return at
    }

    /// Where each kind of piece starts in ``pieces``, and how many there are: constants, so each draw's modulo is
    /// a multiplication (the counts are checked against the lists when ``pieces`` is made).
    enum Piece {
        static let wordCount: UInt64 = 124
        static let endingCount: UInt64 = 8
        static let emojiCount: UInt64 = 16
        static let rightToLeftCount: UInt64 = 10
        /// The words as they are, then capitalized, then each after a space.
        static let capitalizedWord = Int(wordCount)
        static let spacedWord = 2 * Int(wordCount)
        static let ending = 3 * Int(wordCount)
        /// Each emoji after a space.
        static let emoji = ending + Int(endingCount)
        static let rightToLeft = emoji + Int(emojiCount)
        static let space = rightToLeft + Int(rightToLeftCount)
    }

    /// Every piece a text is written from, in ``Piece``'s order.
    static let pieces: PackedText = {
        precondition(
            vocabulary.count == Piece.wordCount && endings.count == Piece.endingCount
                && emoji.count == Piece.emojiCount && rightToLeft.count == Piece.rightToLeftCount)
        let words = vocabulary.map { Array($0.utf8) }
        let capitalized = words.map { word in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(word[0]) ? [word[0] - 0x20] + word.dropFirst() : word
        }
        let space = UInt8(ascii: " ")
        return PackedText(
            words + capitalized + words.map { [space] + $0 } + endings.map { Array($0.utf8) }
                + emoji.map { [space] + Array($0.utf8) } + rightToLeft.map { Array($0.utf8) } + [[space]])
    }()

    /// The most bytes a text takes, with the room its last write may store past it (``PackedText/slack``): twenty
    /// sentences of a space, twelve words (each with its space, the longest) and an ending, then three emoji (each
    /// with its space); or the longest right-to-left text and the emoji.
    package static let maximumBytes: Int = {
        let word = pieces.longest(Piece.spacedWord..<Piece.spacedWord + Int(Piece.wordCount))
        let ending = pieces.longest(Piece.ending..<Piece.emoji)
        let sentences = 20 * (1 + 12 * word + ending)
        let emoji = 3 * pieces.longest(Piece.emoji..<Piece.rightToLeft)
        let rightToLeft = pieces.longest(Piece.rightToLeft..<Piece.space)
        return max(sentences, rightToLeft) + emoji + PackedText.slack
    }()

    static let vocabulary = [
        "the", "a", "we", "you", "I", "they", "it", "this", "that", "so", "just", "really", "maybe", "probably",
        "meeting", "lunch", "coffee", "tomorrow", "today", "tonight", "later", "soon", "weekend", "train", "flight",
        "photos", "link", "draft", "plan", "idea", "question", "answer", "update", "deadline", "review", "release",
        "call", "message", "place", "time", "minute", "hour", "team", "project", "budget", "slides", "notes",
        "is", "are", "was", "will", "can", "could", "should", "might", "have", "had", "get", "got", "send", "sent",
        "see", "saw", "think", "know", "need", "want", "love", "like", "check", "try", "fix", "ship", "move",
        "great", "good", "fine", "late", "early", "busy", "free", "ready", "done", "new", "old", "quick", "long",
        "and", "but", "or", "because", "if", "when", "after", "before", "with", "without", "about", "for", "to",
        "at", "on", "in", "from", "there", "here", "again", "still", "already", "almost", "never", "always",
        "don't", "can't", "it's", "let's", "I'm", "you're", "that's", "sounds", "works", "thanks", "sure", "okay",
    ]

    static let endings = [".", ".", ".", "!", "?", "...", "!!", "?!"]

    static let emoji = ["😀", "😂", "👍", "🎉", "❤️", "🙏", "😅", "🔥", "🤔", "👀", "✅", "🚀", "☕", "🌧️", "🍕", "👋🏽"]

    /// Right-to-left messages (Arabic and Hebrew, some with Latin or digits inside, as real chats mix them).
    static let rightToLeft = [
        "مرحبا، كيف حالك اليوم؟", "سأرسل لك الملف بعد الاجتماع", "شكرا جزيلا! نراك غدا الساعة 10",
        "هل رأيت الصور من الرحلة؟", "تمام، أنا في الطريق", "שלום, מה שלומך?", "אני אשלח את הקובץ אחרי הפגישה",
        "תודה רבה! נתראה מחר ב-10", "ראית את התמונות מהטיול?", "סבבה, אני בדרך",
    ]

    static let groupAdjectives = [
        "Weekend", "Project", "Morning", "Family", "Book", "Running", "Design", "Climbing", "Office", "Garden",
        "Photo", "Launch", "Kitchen", "Travel", "Night", "Sunday",
    ]

    static let groupNouns = [
        "crew", "club", "team", "friends", "squad", "circle", "chat", "collective", "gang", "planning", "updates",
        "people", "corner", "room", "hangout", "council",
    ]
}
