/// The texts of generated messages: sentences of varied length from fixed word lists, so a chat list's cells get
/// different heights. About 40 % are a few words, 35 % one or two sentences, 20 % three to seven, 5 % ten to
/// twenty (a long message); one in seven ends with emoji, one in twenty is in Arabic or Hebrew (right to left).
///
/// No text holds a `"`, a `\` or a control character, so JSON carries them as they are. The lists and the draws
/// are part of the data format.
enum ChatText {
    /// The text of message `message` of conversation `conversation` under `seed`.
    static func text(seed: UInt64, conversation: UInt64, message: UInt64) -> String {
        var random = SplitMix64(
            seed: SplitMix64.output(
                seed: SplitMix64.mix(seed ^ 0x7465_7874 ^ (conversation &* SplitMix64.gamma)), index: message))
        let shape = random.next()
        var text = ""
        if shape % 20 == 0 {
            text = rightToLeft[Int((shape >> 8) % UInt64(rightToLeft.count))]
        } else {
            let sentences: Int
            switch (shape >> 8) % 100 {
            case 0..<40:
                text = words(&random, count: 1 + Int(random.next() % 6), capitalized: random.next() % 2 == 0)
                sentences = 0
            case 40..<75: sentences = 1 + Int(random.next() % 2)
            case 75..<95: sentences = 3 + Int(random.next() % 5)
            default: sentences = 10 + Int(random.next() % 11)
            }
            for index in 0..<sentences {
                if index > 0 { text += " " }
                text += words(&random, count: 4 + Int(random.next() % 9), capitalized: true)
                text += endings[Int(random.next() % UInt64(endings.count))]
            }
        }
        if (shape >> 16) % 7 == 0 {
            for _ in 0...(random.next() % 3) { text += " " + emoji[Int(random.next() % UInt64(emoji.count))] }
        }
        return text
    }

    /// `count` words joined by spaces, the first capitalized if asked.
    private static func words(_ random: inout SplitMix64, count: Int, capitalized: Bool) -> String {
        var text = ""
        for index in 0..<count {
            let word = vocabulary[Int(random.next() % UInt64(vocabulary.count))]
            if index == 0 {
                text += capitalized ? word.prefix(1).uppercased() + word.dropFirst() : word
            } else {
                text += " " + word
            }
        }
        return text
    }

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
