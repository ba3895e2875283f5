"""Doc-React's prompts. The in-context examples are appendix E's, verbatim (typos included). The paper gives no
instruction text: the Thought/Action instruction is ReAct's (Yao et al., 2022, HotpotQA prompt) with its three
actions described for document pages; the extraction and answer prompts are ours. Replies are JSON through a
grammar so that every Thought/Action parses.
"""
from __future__ import annotations

from ..toolkit.final_answer import INSTRUCTIONS as FINAL_ANSWER

REACT = """Solve a question answering task over documents with interleaving Thought, Action, Observation steps. Thought can reason about the current situation: what the observations so far tell, and what information is still missing. Action can be three types:
(1) Search[description], which searches the document pages for the figure, table or text described and returns what is observed on the best matching page.
(2) Lookup[request], which extracts the requested information from the pages of the last observation again.
(3) Finish[answer], which returns the answer and finishes the task.
Here are some examples."""

EXAMPLES = (
"""Question: What is the elevation range for the area that the eastern sector of the Colorado orogeny extends into?
Thought 1: I need to search Colorado orogeny, find the area that the eastern sector of the Colorado orogeny extends into, then find the elevation range of the area.
Action 1: Search[A figure of the regional map of Colorado orogeny, where eastern sector is displayed.]
Observation 1: Based on the give images, we can observe as follows. The Colorado orogeny was an episode of mountain building (an orogeny) in Colorado and surrounding areas. This took place from 1780 to 1650 million years ago (Mya), during the Paleoproterozoic (Statherian Period). It is recorded in the Colorado orogen, a >500-km-wide belt of oceanic arc rock that extends southward into New Mexico. The Colorado orogeny was likely part of the larger Yavapai progeny.
Thought 2: It does not mention the eastern sector of the Colorado orogeny. I need to look up eastern sector.
Action 2: Lookup[Extract the eastern sector information from the given figure.]
Observation 2: Based on the give images, we can observe as follows. The Colorado orogen, formerly called the Colorado province, is a >500-km-wide belt of oceanic arc rock (1.78–1.65 Ga) that extends southward into New Mexico and composes a major part of the Proterozoic provinces of southwestern United States. This transcontinental collisional event occurred during the Paleoproterozoic (Statherian Period). The Wyoming sector of the Colorado orogeny was formerly called the Medicine Bow orogeny. The eastern sector extends into the High Plains and is called the Central Plains orogeny. The boundary between the Colorado orogeny and the Wyoming craton is the Cheyenne belt, a 5-km-wide mylonitic shear zone that verges northward. The Cheyenne belt transects and cuts off the south edge of the older Trans-Hudson progeny.
Thought 3: The eastern sector of Colorado orogeny extends into the High Plains, so High Plains is the area. I need to search High Plains and find its elevation range.
Action 3: Search[A figure of High Plains, where its elevation range is annotated.]
Observation 3: Based on the give images, we can observe as follows. The High Plains are a subregion of the Great Plains, mainly in the Western United States, but also partly in the Midwest states of Nebraska, Kansas, and South Dakota, generally encompassing the western part of the Great Plains before the region reaches the Rocky Mountains. The High Plains are located in eastern Montana, southeastern Wyoming, southwestern South Dakota, western Nebraska, eastern Colorado, western Kansas, eastern New Mexico, western Oklahoma, and to just south of the Texas Panhandle. The southern region of the Western High Plains ecology region contains the geological formation known as Llano Estacado which can be seen from a short distance or on satellite maps. From east to west, the High Plains rise in elevation from around 1,800 to 7,000 ft (550 to 2,130 m).
Thought 4: High Plains rise in elevation from around 1,800 to 7,000 ft, so the answer is 1,800 to 7,000 ft.
Action 4: Finish[1,800 to 7,000 ft]""",

"""Question: Which magazine was started first Arthur's Magazine or First for Women?
Thought 1: I need to search Arthur's Magazine and First for Women, and find which was started first.
Action 1: Search[A wiki document page about Arthur's Magazine.]
Observation 1: Based on the give images, we can observe as follows. Arthur's Magazine (1844–1846) was an American literary periodical published in Philadelphia in the 19th century. Edited by Timothy Shay Arthur, it featured work by Edgar A. Poe, J.H. Ingraham, Sarah Josepha Hale, Thomas G. Spear, and others. In May 1846 it was merged into Godey's Lady's Book.
Thought 2: Arthur's Magazine was started in 1844. I need to search First for Women next.
Action 2: Search[A webpage introduction about First for Women.]
Observation 2: Based on the give images, we can observe as follows. First for Women is a woman's magazine published by Bauer Media Group in the USA. The magazine was started in 1989. It is based in Englewood Cliffs, New Jersey. In 2011 the circulation of the magazine was 1,310,696 copies.
Thought 3: First for Women was started in 1989. 1844 (Arthur's Magazine) < 1989 (First for Women), so Arthur's Magazine was started first.
Action 3: Finish[Arthur's Magazine]""",

"""Question: Guitars for Wounded Warriors is an album that was recorded in the village in which New York county?
Thought 1: I need to search Guitars for Wounded Warriors, then find in which New York county it was recorded.
Action 1: Search[A document page about Guitars for Wounded Warriors.]
Observation 1: Based on the give images, we can observe as follows. Guitars for Wounded Warriors is the sixth solo studio album by guitarist Brian Tarquin, released in August 2014 by Cleopatra Records. In 2016, it received a Best Compilation Album nomination by the Independent Music Awards. All tracks were recorded at Tarquin's Jungle Room Studios in New Paltz (village), New York. Being moved by the lack of support for returning veterans through his life Tarquin decided to compose a heavy instrumental rock album as a way to show his appreciation to all veterans. So once again he enlisted top notch players to guest with him on the album, Billy Sheehan on Black Hawk, Ron "Bumblefoot" Thal and Reb Beach on Taliban Terror, Steve Morse on Freedom, Chris Poland on Charlie Surfs and Hunting, Chuck Loeb on Escape Kabul, Hal Lindes on Sand & Blood, Gary Hoey on 5 Klicks To Hell and Baghdad, Alex De Rosso Dokken on Broken Arrow, and The Flyin' Ryan Brothers on Surgical Strike. The entire album was engineered, produced and composed by Tarquin especially for each one of the guest guitarists. Partial proceeds are donated to the Fisher House Foundation from sales.
Thought 2: Guitars for Wounded Warriors was recorded in New Paltz (village), New York. I need to search New Paltz (village), New York and find which county it is in.
Action 2: Search[A figure of map that indicates the location of New Paltz (village), New York.]
Observation 2: Based on the give images, we can observe as follows. New Paltz is a village in Ulster County located in the U.S. state of New York. It is approximately 80 miles (130 km) north of New York City and 70 miles (110 km) south of Albany. The population was 7,324 at the 2020 census.
Thought 3: New Paltz (village), New York is in Ulster County, so the answer is Ulster County.
Action 3: Finish[Ulster County]"""
)

REACT_REQUEST = """Now the task.

{trajectory}

Write Thought {round} and Action {round} as JSON: "thought", then "action" ({actions}) and its "argument"."""

EXTRACT = """You are given a question, a search request made while answering it, and a document page. Extract from the page the information the search request asks for, exactly as the page gives it (numbers with their units and labels). If the page does not contain it, say briefly what the page shows instead. Write a few sentences at most."""

EXTRACT_REQUEST = """Question: {question}
Search request: {sub_query}"""

ANSWER = f"""You are given a question and the observations made while searching documents for its answer: each observation was extracted from the document pages named with it. Answer the question from the observations. Quote in "evidence" the words of the observations that support the answer, with the number of the page they were extracted from.

{FINAL_ANSWER}"""

ANSWER_REQUEST = """{trajectory}

Answer the question."""


def step_schema(actions: list[str], thought_chars: int, argument_chars: int) -> dict:
    """One Thought and Action; `actions` is what this round allows (Search alone before any observation)."""
    return {"type": "object",
            "properties": {"thought": {"type": "string", "maxLength": thought_chars},
                           "action": {"type": "string", "enum": actions},
                           "argument": {"type": "string", "maxLength": argument_chars}},
            "required": ["thought", "action", "argument"], "additionalProperties": False}
