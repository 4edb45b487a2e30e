/// The texts of generated messages: sentences of varied length from fixed word lists, so a chat list's cells get
/// different heights. About 40 % are a few words, 35 % one or two sentences, 20 % three to seven, 5 % ten to
/// twenty (a long message); one in seven ends with emoji, one in twenty is in Arabic or Hebrew (right to left).
///
/// A text is made of pieces from ``pieces``: a few words are one of 256 heads (one to three words) and one of 256
/// tails (none to three), a sentence one of 256 openings (two to six words) and one of 256 closings (two to six
/// words and an ending): tables made once from the word lists. So there are 65,536 of each, a sentence still has
/// four to twelve words, and a text is about five pieces to write, where word by word it was 23 and most of a page
/// of messages' own CPU. Tables of 1,024 took 130 KB, out of the first-level cache, and a page about 0.3 µs more in
/// the server (Benchmarks/HISTORY.md).
///
/// No text holds a `"`, a `\` or a control character, so JSON carries them as they are. The lists, the tables and the
/// draws are part of the data format.
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

    /// The version of the texts' format, part of every chat representation's tag: 3 since a text is written from
    /// tables of pieces of sentences, not word by word (2: each choice took 16 bits of a draw, not a draw of its
    /// own); the texts changed with each.
    package static let format: UInt64 = 3

    /// Writes the UTF-8 of ``text(seed:conversation:message:)`` into `bytes` from `offset`, which must have
    /// ``maximumBytes`` of room; returns the offset past it. The page path writes it so, straight into the page's
    /// buffer: built from strings, a page of 20 messages took three times the CPU of a page of items, appended to
    /// an array byte by byte and copied into the page 1.6 times (Benchmarks/HISTORY.md).
    package static func write(
        seed: UInt64, conversation: UInt64, message: UInt64, into bytes: inout MutableRawSpan, at offset: Int
    ) -> Int {
        write(stream: stream(seed: seed, conversation: conversation), message: message, into: &bytes, at: offset)
    }

    /// The seed of conversation `conversation`'s texts under `seed`, which ``write(stream:message:into:at:)`` takes:
    /// the same for all its messages, so a page works it out once.
    static func stream(seed: UInt64, conversation: UInt64) -> UInt64 {
        SplitMix64.mix(seed ^ 0x7465_7874 ^ (conversation &* SplitMix64.gamma))
    }

    /// ``write(seed:conversation:message:into:at:)`` with the conversation's ``stream(seed:conversation:)``.
    static func write(stream: UInt64, message: UInt64, into bytes: inout MutableRawSpan, at offset: Int) -> Int {
        var random = SplitMix64(seed: SplitMix64.output(seed: stream, index: message))
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
                at = pieces.write(Piece.head + draws.below(Piece.tableCount), into: &bytes, at: at)
                at = pieces.write(Piece.tail + draws.below(Piece.tableCount), into: &bytes, at: at)
                sentences = 0
            case 40..<75: sentences = 1 + draws.below(2)
            case 75..<95: sentences = 3 + draws.below(5)
            default: sentences = 10 + draws.below(11)
            }
            if sentences > 0 {
                for _ in 0..<sentences {
                    at = pieces.write(Piece.opening + draws.below(Piece.tableCount), into: &bytes, at: at)
                    at = pieces.write(Piece.closing + draws.below(Piece.tableCount), into: &bytes, at: at)
                }
                at -= 1  // the space after the last closing
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

    /// Where each kind of piece starts in ``pieces``, and how many there are: constants, so each draw's modulo is
    /// a multiplication (the counts are checked against the lists when ``pieces`` is made).
    enum Piece {
        /// The heads, tails, openings and closings each.
        static let tableCount: UInt64 = 256
        static let wordCount: UInt64 = 124
        static let endingCount: UInt64 = 8
        static let emojiCount: UInt64 = 16
        static let rightToLeftCount: UInt64 = 10
        static let head = 0
        /// Each with a space before it, but the empty ones.
        static let tail = Int(tableCount)
        static let opening = 2 * Int(tableCount)
        /// Each with the space that follows it, which the text's last closing takes back.
        static let closing = 3 * Int(tableCount)
        /// Each emoji after a space.
        static let emoji = 4 * Int(tableCount)
        static let rightToLeft = emoji + Int(emojiCount)
    }

    /// Every piece a text is written from, in ``Piece``'s order. The tables are drawn from the word lists under a
    /// seed of their own: a head is one to three words, the first capitalized one time in two; a tail none to three
    /// after a space; an opening two to six, the first capitalized, and a space; a closing two to six, an ending and
    /// a space.
    static let pieces: PackedText = {
        precondition(
            vocabulary.count == Piece.wordCount && endings.count == Piece.endingCount
                && emoji.count == Piece.emojiCount && rightToLeft.count == Piece.rightToLeftCount)
        var draws = Draws(SplitMix64(seed: 0x6368_6174_7465_7874))
        func words(_ count: Int, capitalized: Bool) -> String {
            (0..<count).map { index in
                let word = vocabulary[draws.below(Piece.wordCount)]
                return index == 0 && capitalized ? word.prefix(1).uppercased() + word.dropFirst() : word
            }.joined(separator: " ")
        }
        let table = 0..<Int(Piece.tableCount)
        let heads = table.map { _ in
            let count = 1 + draws.below(3)
            return words(count, capitalized: draws.below(2) == 0)
        }
        let tails = table.map { _ in
            let count = draws.below(4)
            return count == 0 ? "" : " " + words(count, capitalized: false)
        }
        let openings = table.map { _ in words(2 + draws.below(5), capitalized: true) + " " }
        let closings = table.map { _ in
            words(2 + draws.below(5), capitalized: false) + endings[draws.below(Piece.endingCount)] + " "
        }
        return PackedText(
            (heads + tails + openings + closings + emoji.map { " " + $0 } + rightToLeft).map { Array($0.utf8) })
    }()

    /// The most bytes a text takes, with the room its last write may store past it (``PackedText/slack``): twenty
    /// sentences of the longest opening and closing, then three emoji (each with its space); or the longest head
    /// and tail or right-to-left text and the emoji.
    package static let maximumBytes: Int = {
        let fewWords = pieces.longest(Piece.head..<Piece.tail) + pieces.longest(Piece.tail..<Piece.opening)
        let sentences =
            20 * (pieces.longest(Piece.opening..<Piece.closing) + pieces.longest(Piece.closing..<Piece.emoji))
        let emoji = 3 * pieces.longest(Piece.emoji..<Piece.rightToLeft)
        let rightToLeft = pieces.longest(Piece.rightToLeft..<Piece.rightToLeft + Int(Piece.rightToLeftCount))
        return max(sentences, fewWords, rightToLeft) + emoji + PackedText.slack
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
