"""Class mode, in one place: its records (``store``), one server process's rooms and their database
thread (``hub``), what every phone of a class is sent (``phone``), the phones' page and channel
(``channel``: ``panel serve --plugins classroom.channel``), and the teacher's card in the Panel app
(``teacher``)."""
