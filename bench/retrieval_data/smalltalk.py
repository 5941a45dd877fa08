"""The people who talk, what they say about themselves early on, and the turns between stories
(greetings, small talk, reactions, goodbyes) that answer no question."""

# ruff: noqa: E501  (a table keeps one turn per row, however long)

from typing import Final

WOMEN: Final = (
    "Caroline", "Melanie", "Joanna", "Priya", "Gina", "Audrey", "Deborah", "Nora", "Maria", "Tasha",
    "Evelyn", "Jolene", "Rosa", "Hannah", "Leila", "Brianna", "Sonia", "Ines", "Kiara", "Margot",
)  # fmt: skip
MEN: Final = (
    "John", "Tim", "Andrew", "Sam", "Dave", "Calvin", "James", "Victor", "Marcus", "Omar",
    "Felix", "Hector", "Ravi", "Luca", "Theo", "Darnell", "Kenji", "Pablo", "Gideon", "Wes",
)  # fmt: skip
PARTNERS: Final = (
    "Alex",
    "Jordan",
    "Chris",
    "Morgan",
    "Taylor",
    "Riley",
    "Jamie",
    "Casey",
    "Avery",
    "Drew",
    "Quinn",
    "Robin",
)
KIDS: Final = (("daughter", "Emma"), ("son", "Leo"), ("daughter", "Ava"), ("son", "Noah"), ("niece", "Lily"),
               ("nephew", "Ollie"), ("daughter", "Zoe"), ("son", "Eli"), ("daughter", "Maya"), ("son", "Finn"))  # fmt: skip
PETS: Final = (("dog", "Max"), ("cat", "Luna"), ("dog", "Bailey"), ("cat", "Oliver"), ("parrot", "Kiwi"),
               ("dog", "Rosie"), ("cat", "Shadow"), ("dog", "Cooper"), ("hamster", "Peanut"), ("cat", "Cleo"))  # fmt: skip
JOBS: Final = (("nurse", "St. Mary's hospital"), ("high school teacher", "Lincoln High"),
               ("software developer", "a fintech startup"), ("accountant", "a firm downtown"),
               ("line cook", "an Italian place on Fifth Street"), ("graphic designer", "a small agency"),
               ("firefighter", "Station 12"), ("pharmacist", "the drugstore on Main"),
               ("librarian", "the public library"), ("physical therapist", "a sports clinic"))  # fmt: skip
CITIES: Final = (
    "Portland",
    "Austin",
    "Denver",
    "Boston",
    "Chicago",
    "Seattle",
    "Atlanta",
    "Minneapolis",
    "San Diego",
    "Pittsburgh",
)

# (turn, questions about it, open-domain trait): what each person says of themselves early on.
INTRODUCTIONS: Final = (
    ("Work has been wild this week. Being {a_job} at {workplace} is no joke.",
     ("What does {name} do for a living?", "Where does {name} work?"), "career"),
    ("{pet} knocked a plant off the windowsill this morning, so that's how my day started. Typical {pet_kind} behavior.",
     ("What kind of pet does {name} have?", "What is the name of {name}'s pet?"), "animals"),
    ("Still in {city}, still complaining about the rent.",
     ("Which city does {name} live in?",), ""),
    ("{partner} and I celebrated our anniversary with takeout and a movie, which was perfect honestly.",
     ("What is the name of {name}'s partner?", "How did {name} celebrate {their} anniversary?"), ""),
    ("My {kid_rel} {kid} turned {age} and suddenly has opinions about everything.",
     ("How old is {name}'s {kid_rel}?",), "family"),
)  # fmt: skip

GREETINGS: Final = (
    "Hey {friend}! It's been a while, how are you?", "Hi {friend}! How was your week?",
    "{friend}! Good to hear from you. What's new?", "Morning {friend}! Got a minute to catch up?",
    "Hey you! How's everything going?", "Hi {friend}, sorry I went quiet for a bit. How are things?",
)  # fmt: skip
GREETING_REPLIES: Final = (
    "Hey! Busy but good. You?", "Hi! Honestly a lot has happened, where do I start.",
    "Good to hear from you too! Things are hectic but fine.", "Hey {friend}! All good here, just tired.",
    "Oh hi! I was just thinking about you.",
)  # fmt: skip
SMALL_TALK: Final = (
    ("This weather is driving me crazy, it hasn't stopped raining.", "Same here, I haven't seen the sun in days."),
    ("I'm so tired this week, I keep falling asleep on the couch by nine.", "Ha, relatable. I need a vacation."),
    ("Did you see anything good lately?", "Not really, I mostly rewatch old comedies."),
    ("I've been trying to cut back on coffee.", "Good luck with that, I could never."),
    ("The traffic this morning was unreal.", "Ugh, I believe it. It's been bad all month."),
    ("I can't believe how fast this year is going.", "Right? It's a little scary."),
    ("My phone screen cracked again.", "Oh no, not again! You need a better case."),
    ("I finally cleaned out the garage, it only took three years.", "Ha! That deserves a medal."),
    ("We had a power outage for half the day.", "That sounds miserable, glad it's back."),
    ("I made a to-do list and then lost the list.", "Honestly that's the most relatable thing I've heard all week."),
)  # fmt: skip
REACTIONS: Final = (
    "That's so sweet.", "I love that for you!", "Haha, amazing.", "That's wonderful, I'm so happy for you.",
    "Oh wow.", "You deserve it!", "Give everyone a hug from me.", "Ugh, that sounds rough. Hang in there.",
    "That makes me smile.", "Keep me posted!", "So proud of you, {friend}.", "Ha, I can picture it perfectly.",
)  # fmt: skip
CLOSINGS: Final = (
    ("Anyway, I have to run, talk soon!", "Bye! Say hi to {partner} for me."),
    ("I should get dinner started. This was nice!", "Always! Take care, {friend}."),
    ("Okay, my break is over. Let's catch up again soon.", "Definitely. Have a good one!"),
    ("It's getting late, I'm off to bed.", "Night! Talk soon."),
)  # fmt: skip
