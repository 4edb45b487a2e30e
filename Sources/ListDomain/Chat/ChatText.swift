/// The texts of generated messages: sentences of varied length from fixed word lists, so a chat list's cells get
/// different heights. About 40 % are a few words, 35 % one or two sentences, 20 % three to seven, 5 % ten to
/// twenty (a long message); one in seven ends with emoji, one in twenty is in Arabic or Hebrew (right to left).
///
/// No text holds a `"`, a `\` or a control character, so JSON carries them as they are. The lists and the draws
/// are part of the data format.
enum ChatText {
    /// The text of message `message` of conversation `conversation` under `seed`.
    static func text(seed: UInt64, conversation: UInt64, message: UInt64) -> String {
        var bytes: [UInt8] = []
        append(seed: seed, conversation: conversation, message: message, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the UTF-8 of ``text(seed:conversation:message:)`` to `bytes`: the page path writes it so, with no
    /// `String` made (built from strings, a page of 20 messages took three times the CPU of a page of items).
    package static func append(seed: UInt64, conversation: UInt64, message: UInt64, to bytes: inout [UInt8]) {
        var random = SplitMix64(
            seed: SplitMix64.output(
                seed: SplitMix64.mix(seed ^ 0x7465_7874 ^ (conversation &* SplitMix64.gamma)), index: message))
        let shape = random.next()
        if shape % 20 == 0 {
            bytes += rightToLeftBytes[Int((shape >> 8) % UInt64(rightToLeft.count))]
        } else {
            let sentences: Int
            switch (shape >> 8) % 100 {
            case 0..<40:
                let count = 1 + Int(random.next() % 6)
                appendWords(&random, count: count, capitalized: random.next() % 2 == 0, to: &bytes)
                sentences = 0
            case 40..<75: sentences = 1 + Int(random.next() % 2)
            case 75..<95: sentences = 3 + Int(random.next() % 5)
            default: sentences = 10 + Int(random.next() % 11)
            }
            for index in 0..<sentences {
                if index > 0 { bytes.append(UInt8(ascii: " ")) }
                appendWords(&random, count: 4 + Int(random.next() % 9), capitalized: true, to: &bytes)
                bytes += endingBytes[Int(random.next() % UInt64(endings.count))]
            }
        }
        if (shape >> 16) % 7 == 0 {
            for _ in 0...(random.next() % 3) {
                bytes.append(UInt8(ascii: " "))
                bytes += emojiBytes[Int(random.next() % UInt64(emoji.count))]
            }
        }
    }

    /// `count` words joined by spaces, the first capitalized if asked (the words are ASCII), copied from one flat
    /// table (an array a word, each indexed and copied on its own, cost a page of 20 messages a few percent more).
    private static func appendWords(_ random: inout SplitMix64, count: Int, capitalized: Bool, to bytes: inout [UInt8])
    {
        let table = vocabularyTable.bytes
        for index in 0..<count {
            let word = Int(random.next() % UInt64(vocabulary.count))
            var from = vocabularyTable.starts[word]
            let end = vocabularyTable.starts[word + 1]
            if index > 0 { bytes.append(UInt8(ascii: " ")) }
            if index == 0, capitalized, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(table[from]) {
                bytes.append(table[from] - 0x20)
                from += 1
            }
            bytes.append(contentsOf: table[from..<end])
        }
    }

    /// Words as one run of bytes, word `k` at `starts[k] ..< starts[k + 1]`.
    struct WordTable: Sendable {
        let bytes: [UInt8]
        let starts: [Int]

        init(_ words: [String]) {
            var bytes: [UInt8] = []
            var starts = [0]
            for word in words {
                bytes += word.utf8
                starts.append(bytes.count)
            }
            self.bytes = bytes
            self.starts = starts
        }
    }

    static let vocabularyTable = WordTable(vocabulary)
    static let endingBytes = endings.map { Array($0.utf8) }
    static let emojiBytes = emoji.map { Array($0.utf8) }
    static let rightToLeftBytes = rightToLeft.map { Array($0.utf8) }

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
